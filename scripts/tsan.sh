#!/usr/bin/env bash
# ThreadSanitizer run of the actor tests. Debian's CAF is not instrumented,
# so TSan would see CAF's message passing as races; this script builds CAF
# 0.17.6 (Debian's source package's upstream tarball, checked against its
# .dsc) with -fsanitize=thread into build-tsan/caf, then actorflow with
# ACTORFLOW_SANITIZERS=thread against it into build-tsan/af, and runs
# actors_test. A report fails the run. CAF is a checking tool here, not a
# dependency of the project; nothing is installed outside build-tsan/.
#   scripts/tsan.sh [gtest filter]     default: every actors_test test
# Needs root (or sudo) once, to let apt fetch Debian source packages.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD/build-tsan"
jobs="${ACTORFLOW_JOBS:-$(nproc)}"
filter="${1:-*}"
mkdir -p "$root/src"

# 1. CAF's source: apt needs a deb-src entry for bookworm.
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
if ! grep -rqs "deb-src" /etc/apt/sources.list /etc/apt/sources.list.d/; then
  $sudo tee /etc/apt/sources.list.d/actorflow-tsan-src.sources >/dev/null <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  $sudo apt-get update -qq
fi
cd "$root/src"
if [ ! -f actor-framework_0.17.6.orig.tar.gz ]; then
  # The Debian part (.debian.tar.xz) may be missing from a mirror: only the
  # upstream tarball is used, so its failure is not one.
  apt-get source --download-only actor-framework=0.17.6-2.1 || true
fi
want=$(awk '/^Checksums-Sha256:/{f=1;next} f&&/orig.tar.gz/{print $1;exit}' \
  actor-framework_0.17.6-2.1.dsc)
echo "$want  actor-framework_0.17.6.orig.tar.gz" | sha256sum -c -
rm -rf actor-framework-0.17.6
tar xzf actor-framework_0.17.6.orig.tar.gz
# GCC 12 no longer includes <limits> through other headers.
for f in $(grep -rl "std::numeric_limits" actor-framework-0.17.6/libcaf_*/caf \
             actor-framework-0.17.6/libcaf_*/src); do
  grep -q "#include <limits>" "$f" || sed -i '0,/#include/s//#include <limits>\n#include/' "$f"
done

# 2. CAF with TSan.
cmake -S actor-framework-0.17.6 -B "$root/caf-build" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS=-fsanitize=thread -g1" \
  -DCAF_NO_EXAMPLES=yes -DCAF_NO_UNIT_TESTS=yes -DCAF_NO_TOOLS=yes \
  -DCAF_NO_PYTHON=yes -DCAF_NO_OPENCL=yes -DCAF_NO_SUMMARY=yes \
  -DCMAKE_INSTALL_PREFIX="$root/caf"
cmake --build "$root/caf-build" -j "$jobs"
cmake --install "$root/caf-build" >/dev/null

# 3. actorflow with TSan against it, the actor tests only.
cd "$root/.."
cmake -S . -B "$root/af" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" \
  -DACTORFLOW_SANITIZERS=thread -DACTORFLOW_ENABLE_BENCHMARKS=OFF \
  -DACTORFLOW_ENABLE_CUDA=OFF -DCMAKE_PREFIX_PATH="$root/caf" \
  $(command -v ccache >/dev/null && echo -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake --build "$root/af" -j "$jobs" --target actors_test

# 4. Run: the TSan-built CAF first on the library path; one OpenBLAS
# thread (OpenBLAS is not instrumented; its own threads synchronise in
# ways TSan cannot see).
export LD_LIBRARY_PATH="$root/caf/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export OPENBLAS_NUM_THREADS=1
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:history_size=4"
ldd "$root/af/bin/actors_test" | grep -q "$root/caf/lib/libcaf_core" || {
  echo "tsan: actors_test does not load the TSan-built CAF" >&2
  exit 1
}
"$root/af/bin/actors_test" --gtest_filter="$filter"
