#!/usr/bin/env python3
"""Where a traced step's time goes: per op, from an actorflow Chrome trace.

    scripts/trace_summary.py trace.json [--top 12]

For the steps in the trace: their mean wall time, the firings per step,
the time firings were running summed over the device's lanes (its ratio
to the wall time is how many ran at once), and per op the firings per
step, the mean time per step and its share of the summed time. Prints a
Markdown table and, last, one JSON line.
"""

import argparse
import collections
import json


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("--top", type=int, default=12, help="ops to list")
    args = ap.parse_args()
    with open(args.trace) as f:
        events = json.load(f)["traceEvents"]
    steps = {e["args"]["step"]: e["dur"] for e in events
             if e["ph"] == "X" and e["cat"] == "step"}
    if not steps:
        raise SystemExit("trace_summary: the trace has no step")
    n = len(steps)
    per_op = collections.defaultdict(lambda: [0, 0.0])  # firings, us
    busy = 0.0
    for e in events:
        if e["ph"] != "X" or e["cat"] == "step":
            continue
        per_op[e["cat"]][0] += 1
        per_op[e["cat"]][1] += e["dur"]
        busy += e["dur"]
    wall = sum(steps.values()) / n
    print(f"{n} steps, {wall / 1e3:.3f} ms each, "
          f"{sum(c for c, _ in per_op.values()) / n:.0f} firings per step, "
          f"{busy / n / 1e3:.3f} ms of firings per step "
          f"({busy / n / wall:.2f} at once)\n")
    print("| op | firings per step | ms per step | share |")
    print("| --- | --- | --- | --- |")
    ranked = sorted(per_op.items(), key=lambda kv: -kv[1][1])
    for op, (count, us) in ranked[:args.top]:
        print(f"| {op} | {count / n:.0f} | {us / n / 1e3:.3f} | "
              f"{us / busy:.1%} |")
    print(json.dumps({"steps": n, "step_ms": round(wall / 1e3, 3),
                      "busy_ms": round(busy / n / 1e3, 3),
                      "ops": {op: round(us / n / 1e3, 3)
                              for op, (_, us) in ranked[:args.top]}}))


if __name__ == "__main__":
    main()
