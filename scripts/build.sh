#!/usr/bin/env bash
# Configures and builds actorflow (Release, ccache, warnings as errors) into
# build/. Extra arguments go to CMake, e.g. -DACTORFLOW_ENABLE_CUDA=OFF.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="${ACTORFLOW_JOBS:-$(nproc)}"
launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DACTORFLOW_WARNINGS_AS_ERRORS=ON "${launcher[@]}" "$@"
cmake --build build -j "$jobs"
