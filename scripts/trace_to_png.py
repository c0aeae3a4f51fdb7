#!/usr/bin/env python3
"""Draws one step of an actorflow Chrome trace as a timeline PNG.

    scripts/trace_to_png.py trace.json step.png [--step N]

A row per device track (process / thread of the trace), a bar per node
firing coloured by op, Send->Recv arrows, the step's span shaded. For a
quick look without a browser; Perfetto's UI (ui.perfetto.dev) and
chrome://tracing open the same file. Needs matplotlib (Debian's
python3-matplotlib).
"""

import argparse
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("png")
    ap.add_argument("--step", type=int, default=None,
                    help="the step id to draw (default: the first)")
    args = ap.parse_args()
    with open(args.trace) as f:
        events = json.load(f)["traceEvents"]

    processes, threads = {}, {}
    for ev in events:
        if ev["ph"] == "M" and ev["name"] == "process_name":
            processes[ev["pid"]] = ev["args"]["name"]
        if ev["ph"] == "M" and ev["name"] == "thread_name":
            threads[(ev["pid"], ev["tid"])] = ev["args"]["name"]
    steps = [ev for ev in events if ev["ph"] == "X" and ev["cat"] == "step"]
    if not steps:
        sys.exit("trace_to_png: the trace has no step")
    step = steps[0] if args.step is None else next(
        (s for s in steps if s["args"]["step"] == args.step), None)
    if step is None:
        sys.exit(f"trace_to_png: no step {args.step} in the trace")
    step_id = step["args"]["step"]
    t0 = step["ts"]

    firings = [ev for ev in events if ev["ph"] == "X" and ev["cat"] != "step"
               and ev["args"]["step"] == step_id]
    rows = sorted({(ev["pid"], ev["tid"]) for ev in firings})
    row_of = {r: i for i, r in enumerate(rows)}
    ops = sorted({ev["cat"] for ev in firings})
    cmap = plt.get_cmap("tab20")
    colour = {op: cmap(i % 20) for i, op in enumerate(ops)}

    fig, ax = plt.subplots(figsize=(14, 1.2 + 0.9 * len(rows)))
    ax.axvspan(0, step["dur"] / 1e3, color="0.93", zorder=0)
    for ev in firings:
        y = row_of[(ev["pid"], ev["tid"])]
        start = (ev["ts"] - t0) / 1e3
        width = max(ev["dur"], 1) / 1e3
        ax.broken_barh([(start, width)], (y - 0.4, 0.8),
                       facecolors=colour[ev["cat"]], edgecolor="none")
    # Send -> Recv arrows of this step.
    flows = {}
    for ev in events:
        if ev["ph"] in ("s", "f"):
            flows.setdefault(ev["id"], {})[ev["ph"]] = ev
    for pair in flows.values():
        s, f = pair.get("s"), pair.get("f")
        if not s or not f or (s["pid"], s["tid"]) not in row_of:
            continue
        if not (step["ts"] <= s["ts"] <= step["ts"] + step["dur"]):
            continue
        ax.annotate("", xy=((f["ts"] - t0) / 1e3, row_of[(f["pid"], f["tid"])]),
                    xytext=((s["ts"] - t0) / 1e3,
                            row_of[(s["pid"], s["tid"])]),
                    arrowprops=dict(arrowstyle="->", color="0.3", lw=0.5))
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([f"{processes.get(p, p)}\n{threads.get((p, t), t)}"
                        for p, t in rows], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("ms from the step's start")
    ax.set_title(f"step {step_id}: {len(firings)} firings, "
                 f"{step['dur'] / 1e3:.2f} ms")
    handles = [plt.Rectangle((0, 0), 1, 1, color=colour[op]) for op in ops]
    labels = [op.lstrip("_") if op.startswith("_") else op for op in ops]
    ax.legend(handles, labels, fontsize=7, ncol=max(1, len(ops) // 6),
              loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    fig.savefig(args.png, dpi=110)


if __name__ == "__main__":
    main()
