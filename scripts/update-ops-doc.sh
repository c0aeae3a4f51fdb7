#!/usr/bin/env bash
# Rewrites the op table of docs/ops.md (everything from its first "| op |"
# line on) with what `build/bin/actorflow ops --markdown` prints now. Run
# after adding or changing an op; the docs_ops_current test checks it.
set -euo pipefail
cd "$(dirname "$0")/.."
cli=${1:-build/bin/actorflow}
head=$(sed '/^| op |/,$d' docs/ops.md)
{ printf '%s\n\n' "$head"; "$cli" ops --markdown; } > docs/ops.md.new
mv docs/ops.md.new docs/ops.md
echo "docs/ops.md: $("$cli" ops | grep -c '^[A-Z]') ops"
