#!/usr/bin/env bash
# Fails if any C++ file differs from what clang-format (.clang-format) makes
# of it. Run `git ls-files '*.hpp' '*.cpp' | xargs clang-format -i` to fix.
set -euo pipefail
cd "$(dirname "$0")/.."
git ls-files '*.hpp' '*.cpp' | xargs clang-format --dry-run --Werror
echo "check-format: all C++ files are formatted"
