#!/usr/bin/env python3
"""Peer baseline for bench_conv2d: PyTorch's conv2d, 3x3, 64 -> 64
channels, 32x32, batch 32, padding 1 (SAME), float32 on the CPU, with the
same thread count. Needs PyTorch (python3-torch or pip's torch).

  conv2d_torch.py [--threads 2] [--batch 32] [--seconds 2]

Prints one JSON line: the best time per call in milliseconds and GFLOP/s,
for NCHW (PyTorch's native layout) and channels_last (NHWC, like ours).
"""
import argparse, json, time
import torch


def best_ms(fn, seconds):
    fn()
    best, total, i = 1e30, 0.0, 0
    while i < 3 or total < seconds:
        t = time.perf_counter()
        fn()
        dt = time.perf_counter() - t
        best, total, i = min(best, dt), total + dt, i + 1
    return best * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--seconds", type=float, default=2.0)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    x = torch.rand(args.batch, 64, 32, 32) * 2 - 1
    w = torch.rand(64, 64, 3, 3) * 2 - 1
    flop = 2.0 * args.batch * 32 * 32 * 3 * 3 * 64 * 64
    result = {"batch": args.batch, "threads": args.threads}
    with torch.no_grad():
        result["nchw_ms"] = best_ms(
            lambda: torch.nn.functional.conv2d(x, w, padding=1), args.seconds)
        xl = x.to(memory_format=torch.channels_last)
        wl = w.to(memory_format=torch.channels_last)
        result["nhwc_ms"] = best_ms(
            lambda: torch.nn.functional.conv2d(xl, wl, padding=1), args.seconds)
    for key in ("nchw", "nhwc"):
        result[key + "_gflops"] = round(flop / result[key + "_ms"] / 1e6, 1)
        result[key + "_ms"] = round(result[key + "_ms"], 3)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
