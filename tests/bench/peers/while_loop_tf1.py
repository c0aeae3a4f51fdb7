#!/usr/bin/env python3
"""Peer baseline: per-iteration cost of a data-dependent while loop in
TensorFlow's own v1 graph mode (tf.compat.v1 Session.run): tf.while_loop and
tf.cond become Enter/Merge/Switch/NextIteration/Exit nodes run by TensorFlow's
executor with frames and tags, the design build/bin/bench_while follows.

The loop of while_loop_torch.py and bench_while: an 8-element x, a cond on
sum(x) > 1e6 that is never taken, then x = x * 0.5 + 1, n iterations fed at
run time; parallel_iterations 10 (tf.while_loop's default and bench_while's).
Needs `pip install tensorflow-cpu`.

  while_loop_tf1.py [--iters 100000] [--threads 2] [--rounds 3]

Prints one JSON line: microseconds per iteration (best of the rounds).
"""
import argparse, json, os, time
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iters", type=int, default=100000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    v1 = tf.compat.v1
    v1.disable_v2_behavior()
    v1.disable_control_flow_v2()  # the v1 Switch/Merge loop, not a While op
    g = v1.Graph()
    with g.as_default():
        n = v1.placeholder(tf.int64, [])

        def body(i, x):
            x = tf.cond(tf.reduce_sum(x) > 1e6, lambda: x * 0.0, lambda: x)
            return i + 1, x * 0.5 + 1.0

        _, y = tf.while_loop(lambda i, x: i < n, body,
                             [tf.constant(0, tf.int64), tf.zeros([8])],
                             parallel_iterations=10)
        cfg = v1.ConfigProto(intra_op_parallelism_threads=a.threads,
                             inter_op_parallelism_threads=a.threads)
        with v1.Session(config=cfg) as s:
            s.run(y, {n: 1000})
            best = float("inf")
            for _ in range(a.rounds):
                t = time.perf_counter()
                out = s.run(y, {n: a.iters})
                best = min(best, time.perf_counter() - t)
            assert abs(out[0] - 2.0) < 1e-5, out
    print(json.dumps({"peer": "tensorflow-" + tf.__version__ + "-v1-graph",
                      "iters": a.iters,
                      "us_per_iteration": round(best / a.iters * 1e6, 3)}))


if __name__ == "__main__":
    main()
