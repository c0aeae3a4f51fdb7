#!/usr/bin/env bash
# Runs the test suite built by scripts/build-sanitized.sh: any report of
# AddressSanitizer, LeakSanitizer or UndefinedBehaviorSanitizer fails its
# test. The golden files' generators run no project code and are left to
# the plain build. Extra arguments go to ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=0:detect_stack_use_after_return=0:strict_string_checks=1:check_initialization_order=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan.supp:print_suppressions=0"
# The two tests that lose a live peer keep LeakSanitizer's report but not
# its exit code: CAF 0.17 now and then leaves its BASP broker in a
# reference cycle after a peer became unreachable (indirect leaks only,
# every frame in CAF; seen in CI with the cut link, 2026-11-24, and with
# the dropped connection, 2026-11-28).
cut_link='cluster_over_veth\.a_cut_link|cluster_over_a_slow_network\.a_connection_that_drops'
ctest --test-dir build-asan --output-on-failure -j "${ACTORFLOW_JOBS:-2}" \
  -E "^golden_|${cut_link}" "$@"
LSAN_OPTIONS="${LSAN_OPTIONS}:exitcode=0" \
  ctest --test-dir build-asan --output-on-failure -R "${cut_link}" "$@"
