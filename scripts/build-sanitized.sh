#!/usr/bin/env bash
# Configures and builds actorflow with AddressSanitizer (LeakSanitizer
# included) and UndefinedBehaviorSanitizer into build-asan/: -O1 with line
# tables (half the compile time of -O2 -g, still readable reports), no
# benchmarks, no Python package (its module would need the sanitizers'
# runtimes preloaded into python3), warnings as errors. Every report stops the program. Extra
# arguments go to CMake. Run the suite with scripts/test-sanitized.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
ACTORFLOW_BUILD_DIR=build-asan bash scripts/build.sh \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" \
  "-DACTORFLOW_SANITIZERS=address;undefined" \
  -DACTORFLOW_ENABLE_BENCHMARKS=OFF -DACTORFLOW_ENABLE_CUDA=OFF \
  -DACTORFLOW_PYTHON=OFF "$@"
