#!/usr/bin/env python3
"""Reads an `actorflow train --logdir` directory with TensorBoard's own
event reader and checks what it holds.

    python3 -m venv /tmp/tb && /tmp/tb/bin/pip install tensorboard
    build/bin/actorflow train fashion-mnist --epochs 2 --logdir runs/mlp
    /tmp/tb/bin/python tests/tools/check_tensorboard_events.py runs/mlp \
        --epochs 2 --accuracy 0.8626

Checks, through tensorboard's EventAccumulator (which verifies each
record's masked CRC-32C as it reads): a graph TensorBoard can draw, the
scalars `loss` (every --summary-every steps from 0), `accuracy` and
`samples_per_s` (one per epoch, the last accuracy as the run printed it),
a histogram per weight with as many values as the weight has elements,
all finite. Prints one JSON line. A tool run where pip reaches PyPI, not
a ctest (tensorboard is not a dependency).
"""

import argparse
import json
import math
import sys

from tensorboard.backend.event_processing import event_accumulator


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("logdir")
    ap.add_argument("--epochs", type=int, required=True)
    ap.add_argument("--steps-per-epoch", type=int, default=468)
    ap.add_argument("--summary-every", type=int, default=100)
    ap.add_argument("--accuracy", type=float, default=None,
                    help="the test accuracy the run printed last")
    args = ap.parse_args()
    acc = event_accumulator.EventAccumulator(
        args.logdir, size_guidance={"scalars": 0, "histograms": 0})
    acc.Reload()
    tags = acc.Tags()
    failures = []

    def check(ok, what):
        if not ok:
            failures.append(what)

    graph = acc.Graph()
    check(len(graph.node) > 100, f"graph has {len(graph.node)} nodes")
    ops = {n.op for n in graph.node}
    for op in ("MatMul", "ApplyGradientDescent", "HistogramSummary"):
        check(op in ops, f"graph lacks a {op} node")

    total_steps = args.epochs * args.steps_per_epoch
    loss = acc.Scalars("loss")
    want = list(range(0, total_steps, args.summary_every))
    check([e.step for e in loss] == want,
          f"loss steps {[e.step for e in loss]} != {want}")
    check(all(math.isfinite(e.value) and 0 < e.value < 5 for e in loss),
          "loss values out of range")
    check(loss[-1].value < loss[0].value, "the loss did not fall")

    epochs = [args.steps_per_epoch * (k + 1) for k in range(args.epochs)]
    accuracy = acc.Scalars("accuracy")
    check([e.step for e in accuracy] == epochs,
          f"accuracy steps {[e.step for e in accuracy]} != {epochs}")
    if args.accuracy is not None:
        check(abs(accuracy[-1].value - args.accuracy) < 5e-5,
              f"last accuracy {accuracy[-1].value} != {args.accuracy}")
    rate = acc.Scalars("samples_per_s")
    check([e.step for e in rate] == epochs, "samples_per_s steps")
    check(all(e.value > 100 for e in rate), "samples_per_s too small")

    histograms = tags["histograms"]
    check(len(histograms) >= 2, f"histograms: {histograms}")
    sizes = {}
    for tag in histograms:
        events = acc.Histograms(tag)
        check([e.step for e in events] == want, f"{tag} steps")
        h = events[-1].histogram_value
        check(sum(h.bucket) == h.num, f"{tag}: buckets do not add up")
        check(math.isfinite(h.min) and h.min <= h.max, f"{tag}: min/max")
        sizes[tag] = int(h.num)
    print(json.dumps({"graph_nodes": len(graph.node),
                      "loss_points": len(loss),
                      "loss_first": round(loss[0].value, 4),
                      "loss_last": round(loss[-1].value, 4),
                      "accuracy": [round(e.value, 4) for e in accuracy],
                      "histograms": sizes,
                      "failures": failures}))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
