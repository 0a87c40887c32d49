#!/bin/bash
# ringscope against the reference tools on one large trace, in one run (issue #9):
#   report          `ringscope report -N -j 1 FILE` and `-j $(nproc)` vs `trace-cmd report -N FILE`
#                   (outputs must be identical)
#   count           SDK iterate-and-count vs libtracecmd tracecmd_iterate_events (zstd file and an
#                   uncompressed copy)
#   format          SDK iterate + print_info into a reused TextBuffer vs libtracecmd + tep_print_event
#                   into a trace_seq (the lines of both must be identical)
#   report 10x      ringscope's peak RSS and rate on the same trace repeated 10 times
#   startup         `ringscope report` of a tiny file with every plugin loaded, and `ringscope plugins`
# Medians of RUNS runs, the two sides interleaved in each run (the machine is shared: ratios are
# fairer than absolute figures); CPU time is user+sys, peak RSS from /usr/bin/time.
#   bench/compare.sh BUILD_DIR [FILE] [RUNS]
# Without FILE: BUILD_DIR/bench-data/big.dat, recorded with bench/report/record_big.sh if absent
# (root, tracefs). The 10x and uncompressed copies go to BUILD_DIR/bench-data/ too (not in git).
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
B=$(readlink -f "${1:?usage: bench/compare.sh BUILD_DIR [FILE] [RUNS]}")
DATA=$B/bench-data
mkdir -p "$DATA" "$B/bench/reference"
F=${2:-$DATA/big.dat}
RUNS=${3:-5}
RS=$B/ringscope
SDK=$B/bench/sdk_iterate
REF=$B/bench/reference
J=$(nproc)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

[ -f "$F" ] || "$SRC/bench/report/record_big.sh" "$F" 10
for p in iterate_count iterate_format; do
	if [ ! -x "$REF/$p" ] || [ "$SRC/bench/reference/$p.c" -nt "$REF/$p" ]; then
		# shellcheck disable=SC2046
		cc -O2 -Wall -o "$REF/$p" "$SRC/bench/reference/$p.c" $(pkg-config --cflags --libs libtracecmd libtraceevent)
	fi
done
X10=$DATA/$(basename "$F" .dat)-x10.dat
RAW=$DATA/$(basename "$F" .dat)-none.dat
[ "$X10" -nt "$F" ] || "$B/bench/trace_repeat" "$F" "$X10" 10
[ "$RAW" -nt "$F" ] || "$B/bench/trace_repeat" "$F" "$RAW" 1 none

# Correctness first: the same bytes, the same counts.
trace-cmd report -N "$F" >"$TMP/tc.out" 2>/dev/null
"$RS" report -N -j 1 "$F" >"$TMP/rs1.out" 2>/dev/null
"$RS" report -N -j "$J" "$F" >"$TMP/rsj.out" 2>/dev/null
cmp -s "$TMP/tc.out" "$TMP/rs1.out" && cmp -s "$TMP/tc.out" "$TMP/rsj.out" && report_same=identical || report_same=DIFFERENT
"$REF/iterate_format" "$F" --print >"$TMP/tf.out"
"$SDK" format "$F" --print >"$TMP/sf.out"
cmp -s "$TMP/tf.out" "$TMP/sf.out" && format_same=identical || format_same=DIFFERENT
events=$("$REF/iterate_count" "$F")
events_sdk=$("$SDK" count "$F")
events_raw=$("$SDK" count "$RAW")
events_x10=$("$SDK" count "$X10")
[ "$events" = "$events_sdk" ] && [ "$events" = "$events_raw" ] && count_same=equal || count_same=DIFFERENT
rm -f "$TMP"/*.out

run() { # run NAME CMD...: appends "cpu wall rss" of one run to $TMP/NAME
	local name=$1
	shift
	/usr/bin/time -f "%U %S %e %M" -o "$TMP/t" "$@" >/dev/null 2>/dev/null
	awk '{printf "%.3f %.3f %d\n", $1 + $2, $3, $4}' "$TMP/t" >>"$TMP/$name"
}
median() { # median NAME COLUMN
	sort -n -k"$2" "$TMP/$1" | awk -v c="$2" '{v[NR] = $c} END {print v[int((NR + 1) / 2)]}'
}
for _ in $(seq "$RUNS"); do
	run tc-report trace-cmd report -N "$F"
	run rs-report1 "$RS" report -N -j 1 "$F"
	run rs-reportj "$RS" report -N -j "$J" "$F"
	run ref-count "$REF/iterate_count" "$F"
	run sdk-count "$SDK" count "$F"
	run ref-count-none "$REF/iterate_count" "$RAW"
	run sdk-count-none "$SDK" count "$RAW"
	run ref-format "$REF/iterate_format" "$F"
	run sdk-format "$SDK" format "$F"
done
for _ in $(seq $(((RUNS + 1) / 2))); do
	run rs-report-x10 "$RS" report -N -j "$J" "$X10"
	run sdk-count-x10 "$SDK" count "$X10"
done

startup() { # startup CMD...: median wall time in ms of 11 runs
	local t0 t1
	for _ in $(seq 11); do
		t0=$EPOCHREALTIME
		"$@" >/dev/null 2>&1
		t1=$EPOCHREALTIME
		awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f\n", (b - a) * 1000}'
	done | sort -n | sed -n 6p
}
TINY=$SRC/tests/data/traces/formats-zstd.dat
plugins=$("$RS" plugins | grep -c '^[^ ]' || true)

printf 'file %s (%s events), 10x copy %s (%s events); %s runs, medians; %s cores\n' \
	"$F" "$events" "$X10" "$events_x10" "$RUNS" "$J"
printf '%-22s %10s %10s %9s %9s %9s %9s %10s %10s\n' what ref-cpu-s rs-cpu-s ref-Mev/s rs-Mev/s \
	ratio-cpu ratio-wall ref-rss-KB rs-rss-KB
row() { # row LABEL REF_NAME RS_NAME EVENTS
	local rc rw rr sc sw sr
	if [ -n "$2" ]; then
		rc=$(median "$2" 1) rw=$(median "$2" 2) rr=$(median "$2" 3)
	else
		rc=0 rw=0 rr=0
	fi
	sc=$(median "$3" 1) sw=$(median "$3" 2) sr=$(median "$3" 3)
	awk -v l="$1" -v rc="$rc" -v rw="$rw" -v rr="$rr" -v sc="$sc" -v sw="$sw" -v sr="$sr" -v e="$4" 'BEGIN {
		if (sc <= 0) sc = 0.001
		if (sw <= 0) sw = 0.001
		if (rc > 0)
			printf "%-22s %10.3f %10.3f %9.2f %9.2f %8.1fx %8.1fx %10d %10d\n", l, rc, sc, e / rc / 1e6, e / sc / 1e6, rc / sc, rw / sw, rr, sr
		else
			printf "%-22s %10s %10.3f %9s %9.2f %9s %9s %10s %10d\n", l, "-", sc, "-", e / sc / 1e6, "-", "-", "-", sr
	}'
}
row "report -j 1" tc-report rs-report1 "$events"
row "report -j $J" tc-report rs-reportj "$events"
row "count (zstd)" ref-count sdk-count "$events"
row "count (uncompressed)" ref-count-none sdk-count-none "$events"
row "format" ref-format sdk-format "$events"
row "report -j $J 10x" "" rs-report-x10 "$events_x10"
row "count 10x (zstd)" "" sdk-count-x10 "$events_x10"
awk -v a="$(median rs-report1 2)" -v b="$(median rs-reportj 2)" -v j="$J" \
	'BEGIN {printf "ringscope report -j %d: %.2fx the speed of -j 1 (wall)\n", j, a / b}'
awk -v z="$(median sdk-count 1)" -v n="$(median sdk-count-none 1)" \
	'BEGIN {printf "ringscope count: zstd / uncompressed CPU time = %.2f\n", z / n}'
printf 'startup (median of 11, wall): report %s: %s ms, plugins: %s ms (%s plugins loaded)\n' \
	"$(basename "$TINY")" "$(startup "$RS" report "$TINY")" "$(startup "$RS" plugins)" "$plugins"
printf 'checks: report output %s, format lines %s, counts %s\n' "$report_same" "$format_same" "$count_same"
[ "$report_same" = identical ] && [ "$format_same" = identical ] && [ "$count_same" = equal ]
