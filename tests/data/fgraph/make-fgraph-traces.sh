#!/bin/bash
# Writes the function_graph traces (fgraph-*.dat, by BUILD_DIR/tests/make_fgraph_traces) and runs
# Debian's `trace-cmd report` (3.1.6) on them for every option set below: oracle/CASE.out (xz when
# over 32 KB; an identical output already stored is reused) and cases.tsv (CASE <TAB> ARGS <TAB>
# EXPECTED <TAB> EXIT; paths relative to tests/data, which is where everything runs).
#   bash tests/data/fgraph/make-fgraph-traces.sh BUILD_DIR
set -euo pipefail

TOOL=$(readlink -f "${1:?usage: make-fgraph-traces.sh BUILD_DIR}")/tests/make_fgraph_traces
HERE=$(cd "$(dirname "$0")" && pwd)
DATA=$(cd "$HERE/.." && pwd)
cd "$DATA"
"$TOOL" fgraph >/dev/null
rm -rf fgraph/oracle
mkdir -p fgraph/oracle
manifest=fgraph/cases.tsv
printf '# case\targs (after "report", paths relative to tests/data)\texpected stdout\texpected exit code\n' >$manifest

tc() { env -i PATH=/usr/bin:/bin HOME=/nonexistent LC_ALL=C trace-cmd report "$@"; }

declare -A STORED
# case NAME ARGS...: one oracle and one manifest line.
case_() {
	local name=$1 rc=0 sum dest
	shift
	tc "$@" >fgraph/oracle/.out || rc=$?
	sum=$(sha256sum <fgraph/oracle/.out | cut -d' ' -f1)
	if [[ -n ${STORED[$sum]:-} ]]; then
		dest=${STORED[$sum]}
		rm fgraph/oracle/.out
	elif [[ $(stat -c %s fgraph/oracle/.out) -gt 32768 ]]; then
		dest=fgraph/oracle/$name.out.xz
		xz -9 -c fgraph/oracle/.out >"$dest"
		rm fgraph/oracle/.out
	else
		dest=fgraph/oracle/$name.out
		mv fgraph/oracle/.out "$dest"
	fi
	STORED[$sum]=$dest
	printf '%s\t%s\t%s\t%s\n' "$name" "$*" "$dest" "$rc" >>$manifest
}

for f in i386-4.13 x86_64-4.x x86_64-5.x x86_64-6.13-retval x86_64-6.18; do
	t=fgraph/fgraph-$f.dat
	case_ "$f" "$t"
	case_ "$f-N" -N "$t"
	case_ "$f-O-tailprint-depth" -O fgraph:tailprint -O fgraph:depth "$t"
done
# Big-endian kernels (records, pages and file big-endian): the story of their little-endian twins.
for f in ppc-4.13-be ppc64-5.x-be; do
	t=fgraph/fgraph-$f.dat
	case_ "$f" "$t"
	case_ "$f-N" -N "$t"
	case_ "$f-R" -R "$t"
done
t=fgraph/fgraph-x86_64-6.18.dat
case_ tailprint -O fgraph:tailprint "$t"
case_ depth -O depth "$t"
case_ ftrace-tailprint -O ftrace:tailprint "$t"
case_ depth-twice -O depth -O fgraph:depth "$t"
case_ R -R "$t"
case_ t -t "$t"
case_ l -l "$t"
case_ cpu0 --cpu 0 "$t"
case_ cpu1 --cpu 1 "$t"
case_ F-entry -F funcgraph_entry "$t"
case_ F-v-exit -v -F funcgraph_exit "$t"
case_ n-entry -n funcgraph_entry "$t"
case_ n-exit -n funcgraph_exit "$t"
case_ two-files -i fgraph/fgraph-i386-4.13.dat -i "$t"
# 3.1.6 merges the entry with the same task's exit on the other CPU; the trace ends there (what
# 3.1.6 prints after such a leaf depends on its heap: README.md).
case_ cross-cpu fgraph/fgraph-cross-cpu.dat
# Formats no kernel writes: trace-cmd's complaints when a field is missing or not a number, and
# entries without a funcgraph_exit format.
case_ broken fgraph/fgraph-broken.dat
case_ broken-tailprint-depth -O tailprint -O depth fgraph/fgraph-broken.dat
case_ no-exit fgraph/fgraph-no-exit.dat
t=fgraph/fgraph-x86_64-6.13-retval.dat
case_ retval-dec -O fgraph:retval-dec "$t"
case_ retval-hex-tailprint -O fgraph:retval-hex -O tailprint "$t"
