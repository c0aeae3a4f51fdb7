#!/usr/bin/env bash
# Configures and builds actorflow with AddressSanitizer (LeakSanitizer
# included) and UndefinedBehaviorSanitizer into build-asan/: -O1 with line
# tables (half the compile time of -O2 -g, still readable reports), no
# benchmarks, warnings as errors. Every report stops the program. Extra
# arguments go to CMake. Run the suite with scripts/test-sanitized.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="${ACTORFLOW_JOBS:-$(nproc)}"
launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" \
  "-DACTORFLOW_SANITIZERS=address;undefined" \
  -DACTORFLOW_ENABLE_BENCHMARKS=OFF -DACTORFLOW_ENABLE_CUDA=OFF \
  -DACTORFLOW_WARNINGS_AS_ERRORS=ON "${launcher[@]}" "$@"
cmake --build build-asan -j "$jobs"
