#!/usr/bin/env bash
# Packs what a GPU machine needs to run the CUDA tests and benchmarks
# (they have the NVIDIA driver and CUDA 13's runtime, cuBLAS and cuDNN,
# but no Debian packages and no network): the test and benchmark
# programs and the `actorflow` tool from a build with CUDA on, and the
# shared libraries they need that are not CUDA's or the C library's (CAF,
# Cap'n Proto, spdlog/fmt, yaml-cpp, OpenBLAS, protobuf, ...), into an xz
# archive. Unpack it there and run `gpu/run.sh PROGRAM [ARGS]`, which
# finds that machine's CUDA libraries.
#
#   scripts/pack-gpu.sh [OUT.tar.xz]     (default: build/actorflow-gpu.tar.xz)
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${ACTORFLOW_BUILD_DIR:-build}"
out="${1:-$dir/actorflow-gpu.tar.xz}"
if ! grep -q '^ACTORFLOW_ENABLE_CUDA:BOOL=ON' "$dir/CMakeCache.txt" 2>/dev/null; then
  echo "pack-gpu: $dir is not a build with CUDA on (scripts/build.sh with nvcc on PATH)" >&2
  exit 1
fi
programs=(gpu_test actorflow bench_mlp bench_matmul bench_gpu_matmul)
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/gpu/bin" "$stage/gpu/lib"
for p in "${programs[@]}"; do
  cp "$dir/bin/$p" "$stage/gpu/bin/"
  # Every library but the C runtime's and CUDA's own (the GPU machine's
  # driver and toolkit provide those).
  ldd "$dir/bin/$p" | awk '/=> \// {print $3}' | while read -r lib; do
    case "$(basename "$lib")" in
      libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|ld-linux*|libgcc_s*|libstdc++*) ;;
      libcuda.so*|libcudart*|libcublas*|libcudnn*|libnv*) ;;
      *) cp -nL "$lib" "$stage/gpu/lib/" ;;
    esac
  done
done
cat > "$stage/gpu/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs one packed program with the packed libraries and this machine's
# CUDA runtime, cuBLAS and cuDNN (the toolkit's, or PyTorch's wheels').
here="$(cd "$(dirname "$0")" && pwd)"
cuda_libs="$here/lib"
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib \
         $(python3 -c 'import nvidia, os; b = nvidia.__path__[0]; print(" ".join(os.path.join(b, d, "lib") for d in os.listdir(b)))' 2>/dev/null); do
  [ -d "$d" ] && cuda_libs="$cuda_libs:$d"
done
export LD_LIBRARY_PATH="$cuda_libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
prog="$1"; shift
exec "$here/bin/$prog" "$@"
RUN
chmod +x "$stage/gpu/run.sh"
tar -C "$stage" -cJf "$out" gpu
echo "pack-gpu: $out ($(du -h "$out" | cut -f1))"
