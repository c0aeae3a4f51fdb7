#!/usr/bin/env python3
"""P18: what Session.run costs from Python, beside the C++ session and
TensorFlow in the same run.

Builds a one-node graph in Python (a float32 scalar placeholder x, y =
Identity(x)), writes it as a GraphDef, and times, alternating round by
round: `actorflow benchmark` on it (the C++ session), `sess.run(y, {x: a})`
from Python, and -- with --tf-python -- tests/bench/peers/frozen_graph_tf1.py
(tf.compat.v1.Session.run of the same GraphDef) under that interpreter.
The extension module's run alone (arguments ready, nothing between runs)
separates Python's own cost from the engine's. Then a 64 MiB float32 array fed through Identity and fetched, against
numpy's copy of it (memcpy) and the peak RSS it adds. Medians; the last
line is JSON.

  PYTHONPATH=build/python python3 tests/bench/python_session_run.py \\
      --tf-python /tmp/tfvenv/bin/python
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import actorflow as af

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def time_python(sess, y, x, runs, warmup):
    a = np.array(1.0, np.float32)
    for _ in range(warmup):
        sess.run(y, {x: a})
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        sess.run(y, {x: a})
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def time_binding(sess, runs, warmup):
    """The extension module's run alone: the arguments ready, no Python
    session code between runs."""
    a = np.array(1.0, np.float32)
    h = sess._handle
    args = ([("x", a)], ["y"], [], 0, False, False, False)
    for _ in range(warmup):
        h.run(*args)
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        h.run(*args)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def time_peer(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])["ms_per_run"] * 1e3


def time_big(sess, x, y, mb, runs):
    n = mb << 18
    big = np.ones(n, np.float32)
    sess.run(y, {x: big})
    dst = np.empty_like(big)
    copies, runs_ = [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        np.copyto(dst, big)
        copies.append(time.perf_counter() - t0)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        t0 = time.perf_counter()
        out = sess.run(y, {x: big})
        runs_.append(time.perf_counter() - t0)
        grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
                 - before) / 1024
        del out
    return statistics.median(copies), statistics.median(runs_), grown


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=2000,
                   help="timed runs per round and side")
    p.add_argument("--warmup", type=int, default=500)
    p.add_argument("--rounds", type=int, default=10,
                   help="rounds, each timing every side once: a VM's "
                   "noise comes in phases, so short interleaved rounds "
                   "compare the sides in the same phase")
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--tf-python", help="a python with TensorFlow")
    p.add_argument("--actorflow", default=os.path.join(ROOT, "build", "bin",
                                                       "actorflow"))
    p.add_argument("--big-mb", type=int, default=64)
    a = p.parse_args()

    g = af.Graph()
    with g.as_default():
        x = af.placeholder(af.float32, [], name="x")
        y = af.identity(x, name="y")
        bx = af.placeholder(af.float32, [None], name="bx")
        by = af.identity(bx, name="by")
    tmp = tempfile.mkdtemp(prefix="p18_")
    graph = os.path.join(tmp, "one_node.pb")
    with open(graph, "wb") as f:
        f.write(g.as_graph_def())
    feed = os.path.join(tmp, "x.npy")
    np.save(feed, np.array(1.0, np.float32))
    common = ["--graph", graph, "--feed", "x=" + feed, "--fetch", "y",
              "--runs", str(a.runs), "--warmup", str(a.warmup),
              "--threads", str(a.threads)]
    config = {"intra_op_parallelism_threads": a.threads,
              "inter_op_parallelism_threads": a.threads}
    rounds = []
    with af.Session(graph=g, config=config) as sess:
        for r in range(a.rounds):
            row = {"cpp_us": time_peer([a.actorflow, "benchmark"] + common),
                   "python_us": time_python(sess, y, x, a.runs, a.warmup),
                   "binding_us": time_binding(sess, a.runs, a.warmup)}
            if a.tf_python:
                row["tf_us"] = time_peer(
                    [a.tf_python, os.path.join(
                        ROOT, "tests/bench/peers/frozen_graph_tf1.py")]
                    + common)
            rounds.append(row)
            print(f"round {r + 1}: " + ", ".join(
                f"{k} {v:.1f}" for k, v in row.items()), flush=True)
        copy_s, run_s, grown = time_big(sess, bx, by, a.big_mb, 10)
    cpp = statistics.median(r["cpp_us"] for r in rounds)
    py = statistics.median(r["python_us"] for r in rounds)
    binding = statistics.median(r["binding_us"] for r in rounds)
    # Within each round, Python against its own limit (1.3 x C++ + 3 us).
    within = statistics.median(r["python_us"] / (1.3 * r["cpp_us"] + 3)
                               for r in rounds)
    result = {
        "bench": "python_session_run", "threads": a.threads,
        "runs": a.runs, "rounds": rounds, "cpp_us": round(cpp, 2),
        "python_us": round(py, 2), "binding_us": round(binding, 2),
        "python_vs_cpp_limit_us": round(1.3 * cpp + 3, 2),
        "python_over_limit_per_round": round(within, 3),
        "big_mb": a.big_mb, "big_run_ms": round(run_s * 1e3, 2),
        "memcpy_ms": round(copy_s * 1e3, 2),
        "big_vs_memcpy": round(copy_s / run_s, 3),
        "big_peak_rss_growth_mb": round(grown, 1),
    }
    print(f"C++ session {cpp:.1f} us, Python {py:.1f} us per run "
          f"(limit 1.3x + 3 = {1.3 * cpp + 3:.1f}); the module's run "
          f"alone {binding:.1f} us; per round, Python / limit "
          f"{within:.2f} (goal <= 1)")
    if a.tf_python:
        tf = statistics.median(r["tf_us"] for r in rounds)
        result["tf_us"] = round(tf, 2)
        result["python_vs_tf"] = round(statistics.median(
            r["python_us"] / r["tf_us"] for r in rounds), 3)
        print(f"TensorFlow {tf:.1f} us: Python/TF {result['python_vs_tf']:.2f}"
              " per round (goal 0.3)")
    print(f"{a.big_mb} MiB through Identity: {run_s * 1e3:.1f} ms, memcpy "
          f"{copy_s * 1e3:.1f} ms ({copy_s / run_s:.2f}x of memcpy), peak "
          f"RSS +{grown:.0f} MB")
    print(json.dumps(result))


if __name__ == "__main__":
    sys.exit(main())
