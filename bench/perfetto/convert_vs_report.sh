#!/bin/bash
# `ringscope convert FILE -o OUT.perfetto-trace` (and with --compact-sched) against
# `ringscope report -N FILE > /dev/null` on the same file: RUNS alternating runs of each, median wall time, user+sys CPU time and peak RSS
# (GNU time), and the output sizes.
#   convert_vs_report.sh [RINGSCOPE] [FILE] [RUNS] [REPORT_JOBS]
# REPORT_JOBS: report's -j (default: report's own default, the cores).
set -euo pipefail
BIN=${1:-build/ringscope}
FILE=${2:-build/bench-data/big.dat}
RUNS=${3:-7}
JOBS=${4:-}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
jobs_opt=()
[[ -n $JOBS ]] && jobs_opt=(-j "$JOBS")

measure() {  # label, command...: appends "wall cpu rss_kb" to $OUT/label
	local label=$1
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$OUT/t" "$@" >/dev/null 2>"$OUT/err" || { cat "$OUT/err" >&2; exit 1; }
	awk '{printf "%s %.2f %s\n", $1, $2 + $3, $4}' "$OUT/t" >>"$OUT/$label"
}
for _ in $(seq "$RUNS"); do
	measure report "$BIN" report -N "${jobs_opt[@]}" "$FILE"
	measure convert "$BIN" convert -q "$FILE" -o "$OUT/trace.perfetto-trace"
	measure compact "$BIN" convert -q --compact-sched "$FILE" -o "$OUT/compact.perfetto-trace"
done
median() { sort -n -k"$2" "$1" | awk -v k="$2" '{a[NR] = $k} END {print a[int((NR + 1) / 2)]}'; }
events=$("$BIN" convert "$FILE" -o "$OUT/trace.perfetto-trace" 2>&1 | sed -n 's/.*: \([0-9]*\) events.*/\1/p')
report_bytes=$("$BIN" report -N "${jobs_opt[@]}" "$FILE" | wc -c)
printf '%s: %s events, %s runs each (median)\n' "$FILE" "$events" "$RUNS"
printf '%-8s %8s %8s %10s %12s\n' "" "wall s" "cpu s" "rss MB" "output MB"
for l in report convert compact; do
	case $l in
	report) bytes=$report_bytes ;;
	convert) bytes=$(stat -c %s "$OUT/trace.perfetto-trace") ;;
	compact) bytes=$(stat -c %s "$OUT/compact.perfetto-trace") ;;
	esac
	printf '%-8s %8s %8s %10.1f %12.1f\n' "$l" "$(median "$OUT/$l" 1)" "$(median "$OUT/$l" 2)" \
		"$(echo "$(median "$OUT/$l" 3) / 1024" | bc -l)" "$(echo "$bytes / 1048576" | bc -l)"
done
