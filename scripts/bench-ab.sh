#!/usr/bin/env bash
# Interleaved A/B of P1, P2 and P3 between two builds, as the performance
# notes compare a change with what came before it on one machine:
#
#   scripts/bench-ab.sh A_BIN_DIR B_BIN_DIR [ROUNDS]
#
# Each round runs bench_chain, bench_while and bench_mlp from A, then from
# B (ROUNDS, default 5). Prints each run's JSON line, then per figure the
# median and range of each side. Build A from a checkout of the commit
# before the change (scripts/build.sh there).
set -euo pipefail
if [ $# -lt 2 ]; then
  sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
a=$1 b=$2 rounds=${3:-5}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for r in $(seq "$rounds"); do
  for side in A B; do
    dir=$([ "$side" = A ] && echo "$a" || echo "$b")
    for bench in bench_chain bench_while bench_mlp; do
      line=$("$dir/$bench" 2>/dev/null | tail -1)
      echo "$r $side $bench $line" | tee -a "$log"
    done
  done
done
/usr/bin/python3 - "$log" <<'PY'
import json, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    r, side, bench, js = line.split(" ", 3)
    runs.setdefault((bench, side), []).append(json.loads(js))
figures = [("bench_chain", "ratio"), ("bench_chain", "ns_per_node"),
           ("bench_while", "us_per_iteration"), ("bench_mlp", "ms_per_step"),
           ("bench_mlp", "no_queue_ms_per_step")]
for bench, key in figures:
    cells = []
    for side in "AB":
        v = [x[key] for x in runs.get((bench, side), [])]
        cells.append(f"{side} {statistics.median(v):.3f} ({min(v):.3f}-{max(v):.3f})"
                     if v else f"{side} -")
    print(f"{bench} {key}: " + ", ".join(cells))
PY
