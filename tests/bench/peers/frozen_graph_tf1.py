#!/usr/bin/env python3
"""TensorFlow's side of `actorflow benchmark` (P15, P16): one GraphDef.

Imports the GraphDef in TensorFlow's v1 graph mode, creates a session with
the given threads (intra- and inter-op), runs it once (session creation,
graph import and the first run are timed together, as actorflow's first
run is), then --warmup untimed and --runs timed runs; prints the median
ms per run, the fastest and slowest, the peak RSS, and a last JSON line
with the keys of actorflow benchmark's. --init nodes run once before the
first run (in its time) and --target nodes every run, as actorflow
benchmark's (a training graph from keras_train_graph.py).

  /tmp/tfvenv/bin/python tests/bench/peers/frozen_graph_tf1.py \\
      --graph G.pb --feed input_1=1x224x224x3 --fetch predictions/Softmax
"""
import argparse
import json
import os
import resource
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--graph", required=True)
    p.add_argument("--feed", action="append", default=[],
                   help="name=D1xD2x... (random float32) or name=file.npy")
    p.add_argument("--fetch", action="append", default=[])
    p.add_argument("--target", action="append", default=[])
    p.add_argument("--init", action="append", default=[])
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--threads", type=int, default=os.cpu_count())
    a = p.parse_args()
    rng = np.random.RandomState(1)
    feeds = {}
    for f in a.feed:
        name, value = f.split("=", 1)
        if value.endswith(".npy"):
            feeds[name] = np.load(value)
        else:
            spec, _, dtype = value.partition(":")
            shape = [int(d) for d in spec.split("x")]
            if dtype.startswith("int"):  # as actorflow's: [0, 10)
                feeds[name] = rng.randint(0, 10, shape).astype(dtype)
            else:
                feeds[name] = rng.uniform(-1, 1, shape).astype(
                    dtype or np.float32)
    import tensorflow as tf
    tf1 = tf.compat.v1
    tf1.disable_eager_execution()
    # From here as actorflow's first run: read, import, session, one run.
    start = time.perf_counter()
    gd = tf1.GraphDef()
    with open(a.graph, "rb") as fh:
        gd.ParseFromString(fh.read())
    g = tf1.Graph()
    with g.as_default():
        tf1.import_graph_def(gd, name="")
    config = tf1.ConfigProto(intra_op_parallelism_threads=a.threads,
                             inter_op_parallelism_threads=a.threads)
    sess = tf1.Session(graph=g, config=config)
    feed = {g.get_tensor_by_name(k if ":" in k else k + ":0"): v
            for k, v in feeds.items()}
    fetch = [f if ":" in f else f + ":0" for f in a.fetch]
    fetch += [g.get_operation_by_name(t) for t in a.target]
    if a.init:
        sess.run([g.get_operation_by_name(i) for i in a.init])
    sess.run(fetch, feed)
    first_ms = (time.perf_counter() - start) * 1e3
    for _ in range(a.warmup):
        sess.run(fetch, feed)
    times = []
    for _ in range(a.runs):
        t0 = time.perf_counter()
        sess.run(fetch, feed)
        times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print("first run (import, session, run): %.1f ms" % first_ms)
    print("steady: %.3f ms per run (median of %d; fastest %.3f, slowest %.3f)"
          % (times[len(times) // 2], a.runs, times[0], times[-1]))
    print("peak RSS: %.1f MB" % rss)
    print(json.dumps({"graph": a.graph, "peer": "tensorflow " + tf.__version__,
                      "first_run_ms": round(first_ms, 3),
                      "ms_per_run": round(times[len(times) // 2], 4),
                      "fastest_ms": round(times[0], 4),
                      "slowest_ms": round(times[-1], 4), "runs": a.runs,
                      "peak_rss_mb": round(rss, 1)}))


if __name__ == "__main__":
    main()
