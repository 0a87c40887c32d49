#!/bin/bash
# Runs the reference C examples (tests/oracles: the man-page EXAMPLEs of tracecmd_iterate_events(3) and
# tep_plugin_kvm_get_func(3), built against Debian's libtracecmd/libtraceevent) on the committed traces
# and writes examples.tsv for tests/conformance.
#
# Usage: make-examples.sh BUILD_DIR     (BUILD_DIR/tests/oracles/{iterate_events,kvm_guest_funcs} must exist)
#
#   examples.tsv         CASE <TAB> PROGRAM <TAB> ARGS <TAB> EXPECTED FILE   (paths relative to tests/data)
#   raw-examples.tsv     CASE <TAB> UNMODIFIED OUTPUT OF THE C EXAMPLE (for the live differential)
#   oracle/CASE.out[.xz] the C example's stdout; expected/CASE.out[.xz] with the stale sched_switch states
#                        corrected (correct_example_states.py) when that changes anything
#
# ARGS are quoted as in cases.tsv; a word `@xz:PATH` stands for a temporary uncompressed copy of PATH
# (the guest kallsyms are committed xz-compressed). Programs run from tests/data, clean environment.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
DATA=$(cd "$HERE/.." && pwd)
BUILD=$(cd "${1:?usage: make-examples.sh BUILD_DIR}" && pwd)
XZ_LIMIT=32768
TMP=$(mktemp -d /tmp/ringscope-examples.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

cd "$DATA"
rm -f traces/oracle/ex-* traces/expected/ex-*
mkdir -p traces/oracle traces/expected
manifest=traces/examples.tsv
rawmanifest=traces/raw-examples.tsv
printf '# case\tprogram\targs (paths relative to tests/data; @xz:PATH = uncompressed temporary copy)\texpected stdout (relative to tests/data)\n' >$manifest
printf '# case\tunmodified stdout of the C example (relative to tests/data), for the live differential\n' >$rawmanifest
: >"$TMP/corrections"

quote_args() {
	local out="" w
	for w in "$@"; do
		case $w in
		*"'"*)
			echo "make-examples.sh: single quote in argument: $w" >&2
			exit 1
			;;
		*[\ \"\\\|\&\!\<\>\(\)\*\~]* | "") w="'$w'" ;;
		esac
		out+="${out:+ }$w"
	done
	printf '%s' "$out"
}

declare -A STORED
remember() { STORED[$(sha256sum <"$1" | cut -d' ' -f1)]=$2; }
remember kvm/kvm.expected-extra kvm/kvm.expected-extra
for f in kvm-agent/seed004.*.xz; do
	xz -dc "$f" >"$TMP/seed"
	remember "$TMP/seed" "$f"
done
store() {
	local sum dest=$2
	sum=$(sha256sum <"$1" | cut -d' ' -f1)
	if [ -n "${STORED[$sum]:-}" ]; then
		STORED_PATH=${STORED[$sum]}
		return
	fi
	if [ "$(stat -c %s "$1")" -gt $XZ_LIMIT ]; then
		dest+=.xz
		xz -9 -T1 -c "$1" >"$dest"
	else
		cp "$1" "$dest"
	fi
	STORED[$sum]=$dest
	STORED_PATH=$dest
}

# run PROGRAM ARGS...: runs the C example with @xz: words expanded.
run() {
	local prog=$1 w args=()
	shift
	for w in "$@"; do
		if [[ $w == @xz:* ]]; then
			local plain="$TMP/xz-$(basename "${w#@xz:}" .xz)"
			[ -e "$plain" ] || xz -dc "${w#@xz:}" >"$plain"
			args+=("$plain")
		else
			args+=("$w")
		fi
	done
	env -i PATH=/usr/bin:/bin HOME=/nonexistent LC_ALL=C "$BUILD/tests/oracles/$prog" "${args[@]}"
}

# e CASE PROGRAM ARGS...
e() {
	local name=$1 prog=$2 rc=0 raw expected w
	shift 2
	run "$prog" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	if [ $rc -ne 0 ]; then
		echo "make-examples.sh: $name: $prog exited with $rc: $(head -3 "$TMP/err")" >&2
		exit 1
	fi
	store "$TMP/out" "traces/oracle/$name.out"
	raw=$STORED_PATH
	expected=$raw
	if grep -q ' sched_switch: ' "$TMP/out"; then
		local specs=()
		for w in "$@"; do
			case $w in
			*.dat)
				env -i PATH=/usr/bin:/bin HOME=/nonexistent LC_ALL=C trace-cmd report -N -t "$w" \
					>"$TMP/N-$(echo "$w" | tr / _)" 2>/dev/null
				specs+=("$w=$TMP/N-$(echo "$w" | tr / _)")
				;;
			esac
		done
		if ! python3 "$HERE/correct_example_states.py" "$TMP/out" "${specs[@]}" >"$TMP/fixed" 2>"$TMP/fixlog"; then
			echo "make-examples.sh: $name: $(cat "$TMP/fixlog")" >&2
			exit 1
		fi
		if ! cmp -s "$TMP/out" "$TMP/fixed"; then
			store "$TMP/fixed" "traces/expected/$name.out"
			expected=$STORED_PATH
			sed "s|^$TMP/out|$name|" "$TMP/fixlog" >>"$TMP/corrections"
		fi
	fi
	printf '%s\t%s\t%s\t%s\n' "$name" "$prog" "$(quote_args "$@")" "$expected" >>$manifest
	printf '%s\t%s\n' "$name" "$raw" >>$rawmanifest
}

B=traces/basic.dat
F=traces/full.dat
I=traces/instances.dat
D=traces/dropped.dat
Z=traces/formats-zstd.dat
N=traces/formats-none.dat
V6=traces/formats-v6.dat
K=kvm/kvm-extra.dat
H=kvm-agent/host.dat
G=kvm-agent/host-vm2.dat

# iterate_events: each file, each option, several files.
for f in $B $F $I $D $Z $N $V6 $K $G; do
	e "ex-iter-$(basename "$f" .dat)" iterate_events "$f"
done
e ex-iter-basic-c0 iterate_events -c 0 $B
e ex-iter-basic-c1 iterate_events -c 1 $B
e ex-iter-basic-f iterate_events -f 'sched_switch' $B
e ex-iter-basic-f-field iterate_events -f 'sched_switch: prev_pid != 0 && next_prio < 120' $B
e ex-iter-basic-f-comm iterate_events -f '.*: COMM == "sleep"' $B
e ex-iter-basic-e iterate_events -e sched_switch $B
e ex-iter-basic-e-c1 iterate_events -e sched_wakeup -c 1 $B
e ex-iter-basic-f-e iterate_events -f 'hrtimer_start,hrtimer_expire_entry' -e hrtimer_start $B
e ex-iter-full-f iterate_events -f 'block,writeback' $F
e ex-iter-full-e iterate_events -e kmalloc $F
e ex-iter-dropped-c1 iterate_events -c 1 $D
e ex-iter-dropped-e iterate_events -e sched_switch $D
e ex-iter-kvm-e iterate_events -e kvm_exit $K
e ex-iter-kvm-f iterate_events -f 'kvm_exit: exit_reason == 0x7b' $K
e ex-iter-multi-basic-dropped iterate_events $B $D
e ex-iter-multi-formats iterate_events $Z $V6
e ex-iter-multi-c1 iterate_events -c 1 $B $Z
e ex-iter-multi-f iterate_events -f 'sched_switch' $B $D
e ex-iter-multi-e iterate_events -e sched_wakeup $B $Z
# the whole merged pair is ~70k lines (see ../kvm-agent/seed004.merged.xz, run from that directory):
# -c 1 keeps the guest's CPU 1 (the host has only CPU 0), still host-time-aligned by the merge.
e ex-iter-agent-merged-c1 iterate_events -c 1 $H $G
e ex-iter-agent-merged-f iterate_events -f 'sched_switch: prev_pid == 0' $H $G

# kvm_guest_funcs: the kvm trace with the guest's kallsyms; traces without kvm events print nothing.
e ex-kvm-extra kvm_guest_funcs $K @xz:kvm/guest-kallsyms.xz
e ex-kvm-basic kvm_guest_funcs $B @xz:kvm/guest-kallsyms.xz

cat "$TMP/corrections" >traces/example-corrections.log
echo "make-examples.sh: $(($(wc -l <$manifest) - 1)) cases" >&2
