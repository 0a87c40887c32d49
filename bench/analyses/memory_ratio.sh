#!/bin/bash
# Peak RSS of every analysis on a trace and on its N-times copy (issue #27: memory flat in the
# trace size). Each analysis subcommand (sched latency/runtime/timeline, kvm exits, ipt summary)
# and each `run` analysis of config/ (alone, and default.yaml's together) runs once per size in a
# fresh process; /usr/bin/time's maximum resident set size, and the ratio Nx / 1x.
#   bench/analyses/memory_ratio.sh BUILD_DIR [N] [SCHED_FILE]
# SCHED_FILE defaults to BUILD_DIR/bench-data/big.dat (bench/report/record_big.sh), else the
# committed tests/data/traces/full.dat; kvm: tests/data/kvm/kvm-extra.dat; Intel PT:
# tests/data/ipt/clean.pt repeated 200 times (and N x 200). The Nx traces are made with
# bench/trace_repeat (each repetition's timestamps after the previous one; the same tasks).
set -euo pipefail
B=$(readlink -f "${1:?usage: bench/analyses/memory_ratio.sh BUILD_DIR [N] [SCHED_FILE]}")
N=${2:-10}
SRC=$(readlink -f "$(dirname "$0")/../..")
F=${3:-$B/bench-data/big.dat}
[ -f "$F" ] || F=$SRC/tests/data/traces/full.dat
F=$(readlink -f "$F")
K=$SRC/tests/data/kvm/kvm-extra.dat
P=$SRC/tests/data/ipt/clean.pt
RS=$B/ringscope
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

cp "$F" "$TMP/sched-1.dat"
"$B/bench/trace_repeat" "$F" "$TMP/sched-$N.dat" "$N" >/dev/null
cp "$K" "$TMP/kvm-1.dat"
"$B/bench/trace_repeat" "$K" "$TMP/kvm-$N.dat" "$N" >/dev/null
for i in $(seq 200); do cat "$P"; done >"$TMP/pt-1.pt"
for i in $(seq "$N"); do cat "$TMP/pt-1.pt"; done >"$TMP/pt-$N.pt"
yaml() { # yaml NAME ANALYSES-BLOCK: a run of these analyses, JSON and text outputs only
	printf 'inputs: []\nplugins: {load: [sched, kvm, ipt]}\nanalyses:\n%s\noutputs:\n  dir: %s/out\n  json: r.json\n  text: r.txt\n' \
		"$2" "$TMP" >"$TMP/$1.yaml"
}
yaml run-sched.latency '  sched.latency: {top: 10}'
yaml run-sched.runtime '  sched.runtime: {}'
yaml run-sched.timeline '  sched.timeline: {window: 10ms}'
yaml run-default '  sched.latency: {top: 10}
  sched.runtime: {}
  sched.timeline: {window: 10ms}'
yaml run-kvm.exits '  kvm.exits: {top: 5}'
yaml run-ipt.summary '  ipt.summary: {}'

rss() { # rss CMD...: the peak RSS in KB of one run (its output discarded)
	/usr/bin/time -f %M -o "$TMP/t" "$@" >/dev/null 2>"$TMP/err" || {
		echo "failed: $* ($(head -c 300 "$TMP/err"))" >&2
		exit 1
	}
	cat "$TMP/t"
}
printf 'sched trace %s, x%d; load average %s\n' "$F" "$N" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-26s %12s %12s %7s\n' analysis rss-1x-KB "rss-${N}x-KB" ratio
one() { # one LABEL KIND ARGS... (the file goes last: KIND-1 / KIND-N)
	local label=$1 kind=$2 ext=dat
	shift 2
	[ "$kind" = pt ] && ext=pt
	local a b
	a=$(rss "$RS" "$@" "$TMP/$kind-1.$ext")
	b=$(rss "$RS" "$@" "$TMP/$kind-$N.$ext")
	awk -v l="$label" -v a="$a" -v b="$b" 'BEGIN {printf "%-26s %12d %12d %7.2f\n", l, a, b, b / a}'
}
one "sched latency" sched sched latency
one "sched runtime" sched sched runtime
one "sched timeline" sched sched timeline
one "kvm exits" kvm kvm exits
one "ipt summary" pt ipt summary
for a in sched.latency sched.runtime sched.timeline default; do
	one "run $a" sched run -q "$TMP/run-$a.yaml"
done
one "run kvm.exits" kvm run -q "$TMP/run-kvm.exits.yaml"
one "run ipt.summary" pt run -q "$TMP/run-ipt.summary.yaml"
