#!/usr/bin/env python3
"""Peer baseline for bench_conv2d: TensorFlow's Conv2D in v1 graph mode, 3x3,
64 -> 64 channels, 32x32, batch 32, SAME, NHWC, float32 on the CPU (oneDNN), with
the same thread count. The input and filter are variables, so a Session.run
times the convolution and the fetch of its output, not a feed.

  conv2d_tf1.py [--threads 2] [--batch 32] [--seconds 2]

Prints one JSON line: the best time per call in milliseconds and GFLOP/s.
"""
import argparse, json, os, time
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--seconds", type=float, default=2.0)
    a = ap.parse_args()
    v1 = tf.compat.v1
    v1.disable_v2_behavior()
    g = v1.Graph()
    with g.as_default():
        x = v1.get_variable("x", [a.batch, 32, 32, 64],
                            initializer=v1.random_uniform_initializer(-1, 1, seed=1))
        w = v1.get_variable("w", [3, 3, 64, 64],
                            initializer=v1.random_uniform_initializer(-1, 1, seed=2))
        y = tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME")
        op = y.op
        cfg = v1.ConfigProto(intra_op_parallelism_threads=a.threads,
                             inter_op_parallelism_threads=a.threads)
        with v1.Session(config=cfg) as s:
            s.run(v1.global_variables_initializer())
            s.run(op)
            best, total, i = 1e30, 0.0, 0
            while i < 3 or total < a.seconds:
                t = time.perf_counter()
                s.run(op)
                dt = time.perf_counter() - t
                best, total, i = min(best, dt), total + dt, i + 1
    flop = 2.0 * a.batch * 32 * 32 * 3 * 3 * 64 * 64
    print(json.dumps({"peer": "tensorflow-" + tf.__version__ + "-v1-graph", "batch": a.batch,
                      "threads": a.threads, "ms": round(best * 1e3, 3),
                      "gflops": round(flop / best / 1e9, 1)}))


if __name__ == "__main__":
    main()
