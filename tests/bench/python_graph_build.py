#!/usr/bin/env python3
"""What building a graph costs from Python: a TensorFlow 1 model of
10,000 nodes built with actorflow.compat.v1 beside tensorflow.compat.v1
(with --tf-python, the same code under that interpreter), alternating
round by round. The model is the same code for both: a chain of dense
layers and element-wise ops, each layer a matmul, bias add, activation
and a few operators, until the graph has --nodes nodes. Medians of
--rounds; the ratio is actorflow's time over TensorFlow's. The last line
is JSON.

  PYTHONPATH=build/python python3 tests/bench/python_graph_build.py \\
      --tf-python /tmp/tfvenv/bin/python
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

BUILD = r'''
import os, sys, time
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np
import {module} as tf
tf.disable_v2_behavior()

def build(nodes):
    g = tf.Graph()
    t0 = time.perf_counter()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 16], name="x")
        w = tf.constant(np.full((16, 16), 0.01, np.float32))
        b = tf.constant(np.zeros(16, np.float32))
        h = x
        count = lambda: len(g.get_operations())
        while count() < nodes:
            for _ in range(50):
                h = tf.nn.relu(tf.nn.bias_add(tf.matmul(h, w), b))
                h = h * 0.5 + tf.reduce_mean(h, axis=1, keepdims=True)
                h = tf.tanh(h) - 0.25
    return time.perf_counter() - t0, count()

build(500)  # warm up imports and caches
seconds, n = build({nodes})
print(seconds, n)
'''


def run(python, module, nodes):
    code = BUILD.format(module=module, nodes=nodes)
    out = subprocess.run([python, "-c", code], capture_output=True,
                         text=True, check=True, env=dict(os.environ))
    seconds, n = out.stdout.split()[-2:]
    return float(seconds), int(n)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nodes", type=int, default=10000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--tf-python", help="a python with TensorFlow")
    a = ap.parse_args()
    ours, theirs, nodes = [], [], {}
    for r in range(a.rounds):
        s, n = run(sys.executable, "actorflow.compat.v1", a.nodes)
        ours.append(s)
        nodes["actorflow"] = n
        if a.tf_python:
            s, n = run(a.tf_python, "tensorflow.compat.v1", a.nodes)
            theirs.append(s)
            nodes["tensorflow"] = n
        print(f"round {r + 1}: actorflow {ours[-1] * 1e3:.1f} ms"
              + (f", tensorflow {theirs[-1] * 1e3:.1f} ms" if theirs else ""),
              flush=True)
    result = {"benchmark": "python_graph_build", "nodes": nodes,
              "actorflow_ms": statistics.median(ours) * 1e3,
              "actorflow_us_per_node": statistics.median(ours) * 1e6
              / nodes["actorflow"]}
    if theirs:
        result["tensorflow_ms"] = statistics.median(theirs) * 1e3
        result["tensorflow_us_per_node"] = statistics.median(theirs) * 1e6 \
            / nodes["tensorflow"]
        result["ratio"] = result["actorflow_ms"] / result["tensorflow_ms"]
    print(json.dumps(result))


if __name__ == "__main__":
    main()
