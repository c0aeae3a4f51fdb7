#!/usr/bin/env bash
# Installs everything actorflow needs on Debian 12: compiler, CMake and every
# library. Idempotent: installs only what is missing, runs `apt-get update`
# at most once. Works as root or through sudo.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config git
  libcaf-dev libssl-dev libeigen3-dev capnproto libcapnp-dev libspdlog-dev
  libgtest-dev libgmock-dev libbenchmark-dev libyaml-cpp-dev libcli11-dev
  libopenblas-dev zlib1g-dev python3 python3-numpy clang-format iproute2
  openssl nlohmann-json3-dev graphviz libprotobuf-dev protobuf-compiler
  libisal-dev libdnnl-dev ocl-icd-opencl-dev python3-matplotlib
  dataset-fashion-mnist fortunes slurm-wlm munge libmicrohttpd-dev prometheus
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages are installed"
  exit 0
fi

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
