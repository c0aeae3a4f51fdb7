#!/usr/bin/env bash
# Configures and builds actorflow (Release, ccache, warnings as errors) into
# build/ (or $ACTORFLOW_BUILD_DIR). Extra arguments go to CMake, e.g.
# -DACTORFLOW_ENABLE_CUDA=OFF; they come last, so they override.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="${ACTORFLOW_JOBS:-$(nproc)}"
launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
dir="${ACTORFLOW_BUILD_DIR:-build}"
# The Python package builds with the venv scripts/setup.sh made (nanobind).
python=()
if [ -x build-tools/venv/bin/python ]; then
  python=("-DPython_EXECUTABLE=$PWD/build-tools/venv/bin/python")
fi
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DACTORFLOW_WARNINGS_AS_ERRORS=ON "${launcher[@]}" "${python[@]}" "$@"
cmake --build "$dir" -j "$jobs"
