#!/usr/bin/env bash
# Builds the fuzz targets of tests/fuzz as libFuzzer programs with clang
# (AddressSanitizer and UndefinedBehaviorSanitizer, libraries instrumented
# for coverage) into build-fuzz/, then runs each from its seeds.
#   scripts/fuzz.sh [RUNS]    RUNS inputs per target (default 10000000)
# Each target's corpus grows in build-fuzz/corpus/<target>; a crash leaves
# its input in build-fuzz/ as crash-<sha1>.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-10000000}"
jobs="${ACTORFLOW_JOBS:-$(nproc)}"
if ! command -v clang++ >/dev/null 2>&1; then
  echo "fuzz: clang++ is needed (apt-get install clang libclang-rt-14-dev)" >&2
  exit 1
fi
launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" \
  "-DACTORFLOW_SANITIZERS=address;undefined" -DACTORFLOW_FUZZ=ON \
  -DACTORFLOW_ENABLE_BENCHMARKS=OFF -DACTORFLOW_ENABLE_CUDA=OFF \
  "${launcher[@]}"
cmake --build build-fuzz -j "$jobs" --target graph_fuzzer checkpoint_fuzzer npy_fuzzer wire_fuzzer \
  fuzz_seeds
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
for target in graph checkpoint npy wire; do
  corpus="build-fuzz/corpus/$target"
  mkdir -p "$corpus"
  cp -n build-fuzz/tests/fuzz/seeds/$target/* "$corpus/"
  echo "fuzz: ${target}_fuzzer, $runs runs"
  (cd build-fuzz && "bin/${target}_fuzzer" -runs="$runs" -max_len=65536 \
     -print_final_stats=1 "corpus/$target")
done
