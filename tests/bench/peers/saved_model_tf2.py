#!/usr/bin/env python3
"""Peer baseline for P17: TensorFlow 2 SavedModels, timed by TensorFlow.

Writes three SavedModels into --dir (the same files actorflow is timed on,
`actorflow benchmark --saved-model DIR/<model> ...`) and times TensorFlow
on each: tf.saved_model.load, the first call of the signature, and the
steady time per call (median of --runs after --warmup).

- while: a tf.function with P2's loop (bench_while, while_loop_tf1.py):
  an 8-element x, a cond on sum(x) > 1e6 never taken, x = x * 0.5 + 1,
  n iterations fed (--iters), parallel_iterations 10; signature `loop`,
  inputs n (int32).
- lstm: a Keras LSTM, 256 units over sequences of 100 steps of 32
  features, batch 32 (serving_default, input `seq`).
- resnet50: keras.applications.ResNet50 (weights=None), for the load
  time (serving_default, input `input_1`, batch 1).

Needs tensorflow-cpu and tf_keras (a venv). Prints one JSON line.

  saved_model_tf2.py --dir /tmp/p17 [--iters 100000] [--runs 10] [--threads 2]
"""
import argparse
import json
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np
import tensorflow as tf
import tf_keras as keras


class Loop(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
    def loop(self, n):
        def body(i, x):
            x = tf.cond(tf.reduce_sum(x) > 1e6, lambda: x * 0.0, lambda: x)
            return i + 1, x * 0.5 + 1.0

        _, y = tf.while_loop(lambda i, x: i < n, body,
                             [tf.constant(0), tf.zeros([8])],
                             parallel_iterations=10)
        return {"y": y}


def write(root):
    paths = {k: os.path.join(root, k) for k in ["while", "lstm", "resnet50"]}
    if not os.path.exists(paths["while"]):
        m = Loop()
        tf.saved_model.save(m, paths["while"], signatures={"loop": m.loop})
    if not os.path.exists(paths["lstm"]):
        seq = keras.Input((100, 32), name="seq")
        model = keras.Model(seq, keras.layers.LSTM(256, name="h")(seq))
        tf.saved_model.save(model, paths["lstm"])
    if not os.path.exists(paths["resnet50"]):
        model = keras.applications.ResNet50(weights=None)
        tf.saved_model.save(model, paths["resnet50"])
    return paths


def time_model(path, signature, feeds, runs, warmup):
    t0 = time.perf_counter()
    m = tf.saved_model.load(path)
    f = m.signatures[signature]
    load_ms = (time.perf_counter() - t0) * 1e3
    f(**feeds)
    first_ms = (time.perf_counter() - t0) * 1e3
    for _ in range(warmup):
        f(**feeds)
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        f(**feeds)
        times.append((time.perf_counter() - t) * 1e3)
    times.sort()
    return {"load_ms": load_ms, "first_run_ms": first_ms,
            "ms_per_run": times[len(times) // 2]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--iters", type=int, default=100000)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    tf.config.threading.set_intra_op_parallelism_threads(a.threads)
    tf.config.threading.set_inter_op_parallelism_threads(a.threads)
    paths = write(a.dir)
    rng = np.random.default_rng(1)
    result = {
        "while": time_model(paths["while"], "loop",
                            {"n": tf.constant(a.iters, tf.int32)}, a.runs,
                            a.warmup),
        "lstm": time_model(paths["lstm"], "serving_default",
                           {"seq": tf.constant(rng.uniform(
                               -1, 1, (32, 100, 32)).astype(np.float32))},
                           a.runs, a.warmup),
        "resnet50": time_model(paths["resnet50"], "serving_default",
                               {"input_1": tf.constant(rng.uniform(
                                   -1, 1, (1, 224, 224, 3)).astype(
                                       np.float32))}, a.runs, a.warmup),
    }
    result["while"]["us_per_iteration"] = (
        result["while"]["ms_per_run"] * 1e3 / a.iters)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
