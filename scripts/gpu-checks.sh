#!/usr/bin/env bash
# Runs, on a GPU machine, every check and measurement of the CUDA device
# in one go (issue 17): the kernel harness and session tests, P9a/P9b/P9c
# beside PyTorch on the same GPU, and `actorflow train --device gpu` for
# the MLP and the CNN. Each part has a time limit and its log goes to OUT;
# a failing part does not stop the others. Run from the repository root:
#
#   here:  bash scripts/pack-gpu.sh            (a build with CUDA on)
#          mkdir -p .gpudata && cp /usr/share/datasets/fashion-mnist/*.gz .gpudata/
#   there: mkdir -p /tmp/af && tar -C /tmp/af -xJf build/actorflow-gpu.tar.xz
#          bash scripts/gpu-checks.sh /tmp/af/gpu .gpudata "$OUT" [PART...]
#
# PART: test, p9a, p9b, p9c, train (default: all, in that order).
# The training runs log at debug level, so every node that soft placement
# put on the CPU is in their logs ("soft placement"); P9b's and P9c's
# steps are traced to OUT/p9b_trace_B.json and OUT/p9c_trace.json, five
# training steps to OUT/train_MODEL_trace.json (scripts/trace_summary.py:
# the copies between host and device per step).
set -uo pipefail
gpu="$1"; data="$2"; out="$3"; shift 3
parts=("$@")
[ ${#parts[@]} -eq 0 ] && parts=(test p9a p9b p9c train)
mkdir -p "$out"
peers="$(pwd)/tests/bench/peers"
run() { # NAME SECONDS COMMAND...: the command's output to OUT/NAME.log
  local name="$1" limit="$2"; shift 2
  echo "== $name: $*"
  timeout "$limit" "$@" > "$out/$name.log" 2>&1
  local rc=$?
  tail -n 3 "$out/$name.log"
  echo "== $name: exit $rc"
}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
for part in "${parts[@]}"; do
  case "$part" in
    test)
      run gpu_test 300 "$gpu/run.sh" gpu_test ;;
    p9a)
      run p9a_actorflow 240 "$gpu/run.sh" bench_gpu_matmul
      run p9a_torch 240 python3 "$peers/matmul_torch_gpu.py" ;;
    p9b)
      for b in 128 1024; do
        run "p9b_actorflow_$b" 240 "$gpu/run.sh" bench_mlp --device gpu \
          --no-queue-only --batch "$b" --data-dir "$data" --threads 4 \
          --trace "$out/p9b_trace_$b.json"
        run "p9b_torch_$b" 240 python3 "$peers/step_torch_gpu.py" --batch "$b"
      done ;;
    p9c)
      run p9c_actorflow 300 "$gpu/run.sh" bench_mlp --model cnn --device gpu \
        --no-queue-only --steps 100 --warmup 20 --data-dir "$data" --threads 4 \
        --trace "$out/p9c_trace.json"
      run p9c_torch 300 python3 "$peers/step_torch_gpu.py" --model cnn \
        --steps 100 --warmup 20 ;;
    train)
      for model in mlp cnn; do
        run "train_$model" 300 "$gpu/run.sh" actorflow --log-level debug \
          train fashion-mnist --model "$model" --device gpu --epochs 3 \
          --data-dir "$data" --trace "$out/train_${model}_trace.json" \
          --trace-steps 200:205
        grep "soft placement" "$out/train_$model.log" | sed 's/.*: node /  /' \
          | sort -u
      done ;;
    *) echo "gpu-checks: unknown part $part" >&2 ;;
  esac
done
