#!/usr/bin/env bash
# Instructions per iteration of bench_while's loop, counted by callgrind:
# two runs (10,000 and 30,000 iterations), their difference over 20,000,
# so that start-up and the warm-up run cancel out. Unlike a timing, the
# count does not move with the machine's load or a VM's neighbours: it is
# how P2's interpreter changes were compared (docs/performance.md).
# Needs valgrind. Usage: scripts/while-instructions.sh [bench_while path]
set -euo pipefail
bin="${1:-build/bin/bench_while}"
count() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" \
    --iterations "$1" --rounds 1 2>&1 \
    | awk '/refs:/ { gsub(",", "", $NF); print $NF }'
}
few=$(count 10000)
many=$(count 30000)
echo "instructions per iteration: $(((many - few) / 20000))"
