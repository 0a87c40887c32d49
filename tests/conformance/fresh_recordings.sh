#!/bin/bash
# The conformance suites on fresh recordings (issue #4's "and on fresh recordings made the same way"):
# copies tests/data to a temporary folder, records basic, full, instances, dropped and formats again
# there with tests/data/traces/record.sh (root, tracefs), makes their trace-cmd oracles with
# make-oracles.sh, and runs ringscope_conformance_test's report suites against that copy. The kvm
# traces (recorded one level down) and function.dat (written) are kept as committed.
#   tests/conformance/fresh_recordings.sh BUILD_DIR [KEEP_DIR]
# Prints each case that differs with its share of identical lines; exits non-zero if any does.
set -euo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
B=$(readlink -f "${1:?usage: fresh_recordings.sh BUILD_DIR [KEEP_DIR]}")
if [ -n "${2:-}" ]; then
	mkdir -p "$2"
	DATA=$(readlink -f "$2")
else
	DATA=$(mktemp -d /tmp/ringscope-fresh.XXXXXX)
	trap 'rm -rf "$DATA"' EXIT
fi
cp -r "$SRC/tests/data/." "$DATA/"
OUT="$DATA/traces" "$DATA/traces/record.sh" basic full instances dropped formats >"$DATA/record.log" 2>&1 ||
	{ cat "$DATA/record.log" >&2; exit 1; }
bash "$DATA/traces/make-oracles.sh" 2>"$DATA/oracles.log" || { cat "$DATA/oracles.log" >&2; exit 1; }
for f in basic full instances dropped formats-zstd; do
	printf '%-18s %s events\n' "$f.dat" "$(trace-cmd report "$DATA/traces/$f.dat" 2>/dev/null | grep -vc '^cpus=')"
done
RINGSCOPE_CONFORMANCE_DATA=$DATA "$B/tests/ringscope_conformance_test" \
	--gtest_filter='Traces/Report.*:Traces/ReportLive.*' --gtest_brief=1 2>&1 | tee "$DATA/conformance.log" |
	grep -E '^\[  (PASSED|FAILED) |identical|^\[==========\]' || true
grep -q '^\[  FAILED  \]' "$DATA/conformance.log" && exit 1
exit 0
