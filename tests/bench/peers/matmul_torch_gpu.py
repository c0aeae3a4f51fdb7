#!/usr/bin/env python3
"""Peer baseline for `bench_gpu_matmul` (P9a): torch.matmul of two n x n
matrices on the GPU, float32 (no TF32, PyTorch's default for products) and
bfloat16, n = 4096 and 8192. A round is `steps` products and then
torch.cuda.synchronize(), as bench_gpu_matmul's round is `steps` session
steps and then a fetch that waits for them.

  matmul_torch_gpu.py [--sizes 4096,8192] [--steps 50] [--rounds 3]

Prints one JSON line with the keys bench_gpu_matmul prints.
"""
import argparse, json, time
import torch


def seconds_per_product(n, dtype, steps, rounds):
    g = torch.Generator(device="cuda").manual_seed(1)
    a = torch.rand(n, n, device="cuda", generator=g).to(dtype)
    b = torch.rand(n, n, device="cuda", generator=g).to(dtype)

    def one_round():
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(steps):
            torch.matmul(a, b)
        torch.cuda.synchronize()
        return (time.perf_counter() - start) / steps

    one_round()  # warm-up
    return min(one_round() for _ in range(rounds))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="4096,8192")
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    result = {}
    for n in (int(s) for s in a.sizes.split(",")):
        for name, dtype in (("float", torch.float32), ("bfloat16", torch.bfloat16)):
            t = seconds_per_product(n, dtype, a.steps, a.rounds)
            tflops = 2.0 * n ** 3 / t / 1e12
            print("n=%d %s: %.3f ms per product, %.1f TFLOP/s" % (n, name, t * 1e3, tflops))
            result["n%d_%s_tflops" % (n, name)] = round(tflops, 1)
    result["torch"] = torch.__version__
    result["gpu"] = torch.cuda.get_device_name()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
