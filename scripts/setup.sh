#!/usr/bin/env bash
# Installs everything actorflow needs on Debian 12: compiler, CMake and every
# library. Idempotent: installs only what is missing, runs `apt-get update`
# at most once. Works as root or through sudo.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ninja-build ccache pkg-config git
  libcaf-dev libssl-dev libeigen3-dev capnproto libcapnp-dev libspdlog-dev
  libgtest-dev libgmock-dev libbenchmark-dev libyaml-cpp-dev libcli11-dev
  libopenblas-dev zlib1g-dev python3 python3-numpy clang-format iproute2
  python3-dev python3-venv python3-pytest
  openssl nlohmann-json3-dev graphviz libprotobuf-dev protobuf-compiler
  libisal-dev libleveldb-dev libsnappy-dev libdnnl-dev ocl-icd-opencl-dev python3-matplotlib
  dataset-fashion-mnist fortunes slurm-wlm munge libmicrohttpd-dev prometheus
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

install_packages() {
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      sudo="sudo"
    else
      echo "setup: not root and no sudo; install as root: ${missing[*]}" >&2
      exit 1
    fi
  fi

  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages are installed"
else
  install_packages
fi

# The Python package's build tools, from PyPI (Debian 12 has no nanobind):
# a venv over Debian's python3, so that it sees Debian's numpy and pytest
# and builds for Debian's python3. ml_dtypes gives numpy a bfloat16.
venv=build-tools/venv
pins=(nanobind==2.9.2 ml_dtypes==0.5.4)
if ! "$venv/bin/python" -c "import nanobind, ml_dtypes, sys
sys.exit(nanobind.__version__ != '2.9.2' or ml_dtypes.__version__ != '0.5.4')" \
  2>/dev/null; then
  echo "setup: installing ${pins[*]} into $venv"
  /usr/bin/python3 -m venv --system-site-packages "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "${pins[@]}"
fi
