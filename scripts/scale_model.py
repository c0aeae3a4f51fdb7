#!/usr/bin/env python3
"""A model of the cluster control plane, from bench_scale's measured costs.

Reads bench_scale's JSON lines (one per N), takes the per-message costs of
one of them (the calibration run), and simulates the fan-out step event by
event for every N: a master that sends one run_step per worker and takes one
report from each, workers that each run their part and send a value to task
0, task 0 that gathers the values, all processes sharing the machine's
cores. It also models an idle cluster (heartbeats on every connection) and
prints predicted against measured, with the error. With --project it
extrapolates to 1,000-10,000 tasks, one host per task, for a flat master and
a tree of masters (docs/scale.md).

    build/bin/bench_scale --workers 64 | tail -1 > runs.jsonl   # and 16, 128, 256
    scripts/scale_model.py runs.jsonl [--calibrate 64] [--cores 2] [--project]

Deterministic: no randomness, no timing of its own.
"""

import argparse
import heapq
import json
import sys


def simulate_step(n, cores, master_us, worker_us, value_us):
    """Wall time of one fan-out step over n workers on `cores` cores (us).

    Each process is one queue of work items run to completion in order;
    a process with work waits for a free core (first come, first served).
    master_us is split evenly between sending a run_step and taking its
    report; worker_us is a worker's whole part (taking run_step, its node,
    sending its value and its report); value_us is task 0's cost per value
    it gathers.
    """
    send_us = recv_us = master_us / 2
    # Work queues: process -> list of (cost, then) where `then` yields the
    # messages the item sends when it finishes.
    queue = {}
    ready = []  # (time it became runnable, seq, process)
    seq = [0]
    free_at = [0.0] * cores
    state = {"reports": 0, "values": 0, "end": 0.0}

    def post(proc, t, cost, then):
        q = queue.setdefault(proc, [])
        q.append((cost, then))
        if len(q) == 1 and proc not in running:
            seq[0] += 1
            heapq.heappush(ready, (t, seq[0], proc))

    running = set()

    def worker_done(i):
        def then(t):
            if i != 0:
                post(0, t, value_us, gathered)
            else:
                state["values"] += 1  # its own
                if state["values"] == n:
                    post("m", t, recv_us, reported)
            if i != 0:
                post("m", t, recv_us, reported)
        return then

    def gathered(t):
        state["values"] += 1
        if state["values"] == n:
            post("m", t, recv_us, reported)

    def reported(t):
        state["reports"] += 1
        state["end"] = max(state["end"], t)

    def sent(i):
        return lambda t: post(i, t, worker_us, worker_done(i))

    for i in range(n):
        post("m", 0.0, send_us, sent(i))
    while ready:
        t, _, proc = heapq.heappop(ready)
        core = min(range(cores), key=lambda c: free_at[c])
        start = max(t, free_at[core])
        running.add(proc)
        now = start
        # Runs what the process has, as a worker thread drains its mailbox.
        while queue.get(proc):
            cost, then = queue[proc].pop(0)
            now += cost
            then(now)
        running.discard(proc)
        free_at[core] = now
    return state["end"]


def idle_core_pct(n, heartbeat_s, heartbeat_us):
    """Percent of one core an idle cluster of n workers spends: every
    connection (n to the master, n - 1 to task 0) heartbeats both ways."""
    connections = n + (n - 1)
    return 100 * 2 * connections / heartbeat_s * heartbeat_us / 1e6


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", help="bench_scale JSON lines, one per N")
    ap.add_argument("--calibrate", type=int, default=64,
                    help="the N whose measured costs set the model")
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--heartbeat-s", type=float, default=5.0)
    ap.add_argument("--heartbeat-us", type=float, default=None,
                    help="CPU per heartbeat, sender and receiver (default: "
                         "from the calibration run's idle figure)")
    ap.add_argument("--project", action="store_true",
                    help="also extrapolate to 1,000-10,000 tasks")
    a = ap.parse_args()
    runs = {}
    with open(a.runs) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                r = json.loads(line)
                runs[r["workers"]] = r
    if a.calibrate not in runs:
        sys.exit(f"no run with {a.calibrate} workers in {a.runs}")

    def costs(r):
        n = r["workers"]
        worker_us = r["worker_cpu_us_per_step"]
        value_us = max(0.0, (r["task0_cpu_us_per_step"] - worker_us) / (n - 1))
        return r["master_cpu_us_per_worker"], worker_us, value_us

    cal = runs[a.calibrate]
    master_us, worker_us, value_us = costs(cal)
    hb_us = a.heartbeat_us
    if hb_us is None:
        hb_us = cal["idle_core_pct"] / idle_core_pct(a.calibrate,
                                                     a.heartbeat_s, 1.0)
    print(f"calibration, N={a.calibrate}: master {master_us:.1f} us per "
          f"worker, a worker {worker_us:.1f} us per step, task 0 "
          f"{value_us:.1f} us per value gathered, {hb_us:.0f} us per "
          f"heartbeat")
    print("Step: the simulation with each run's own measured CPU costs, and "
          f"with N={a.calibrate}'s; idle: heartbeats at N={a.calibrate}'s "
          "cost.")
    print("| N | step ms measured | model, own costs | error | model, "
          f"N={a.calibrate}'s costs | error | idle % measured | idle % model "
          "| error |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    worst = 0.0
    for n in sorted(runs):
        r = runs[n]
        meas = r["step_us"]
        own = simulate_step(n, a.cores, *costs(r))
        fixed = simulate_step(n, a.cores, master_us, worker_us, value_us)
        idle_model = idle_core_pct(n, a.heartbeat_s, hb_us)
        worst = max(worst, abs(own - meas) / meas)
        print(f"| {n} | {meas / 1e3:.1f} | {own / 1e3:.1f} | "
              f"{100 * (own - meas) / meas:+.0f} % | {fixed / 1e3:.1f} | "
              f"{100 * (fixed - meas) / meas:+.0f} % | "
              f"{r['idle_core_pct']:.2f} | {idle_model:.2f} | "
              f"{100 * (idle_model - r['idle_core_pct']) / r['idle_core_pct']:+.0f} % |")
    print(f"worst step error with each run's own costs: {100 * worst:.0f} %")
    if a.project:
        print()
        print("The master's CPU per step, one host per task (what the model's "
              "master costs; a step's own work comes on top):")
        print("| N | flat master ms | steps/s it allows | tree of masters, "
              "groups of 32, ms |")
        print("| --- | --- | --- | --- |")
        for n in (256, 1000, 2000, 5000, 10000):
            flat = n * master_us
            # The master talks to n/32 group masters, each to its 32, side
            # by side: one group's fan-out is on the path.
            tree = (-(-n // 32) + 32) * master_us
            print(f"| {n} | {flat / 1e3:.1f} | {1e6 / flat:.0f} | "
                  f"{tree / 1e3:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
