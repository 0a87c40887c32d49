#!/bin/bash
# Runs Debian's `trace-cmd report` (3.1.6, libtraceevent 1.7.1) on the committed traces for every option
# set below and writes the oracles plus the manifest cases.tsv that tests/conformance reads.
#
#   oracle/CASE.out[.xz]    trace-cmd's stdout, untouched (xz when over 32 KB; an identical output
#                           already committed, also under ../kvm and ../kvm-agent, is reused instead)
#   expected/CASE.out[.xz]  the same with the stale sched_switch states corrected (correct_sched_states.py,
#                           from `trace-cmd report -N ARGS`); only written when it differs from the oracle
#   cases.tsv               CASE <TAB> ARGS <TAB> EXPECTED FILE <TAB> EXIT CODE  (paths relative to tests/data)
#   raw-oracles.tsv         CASE <TAB> UNMODIFIED trace-cmd OUTPUT FILE (what a live trace-cmd run must print)
#
# ARGS are words separated by one space; a word holding a space or a quote is wrapped in single quotes
# (never inside). Everything runs from tests/data with a clean environment (no ~/.trace-cmd plugins).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
DATA=$(cd "$HERE/.." && pwd)
XZ_LIMIT=32768 # the whole set must stay a few MB: xz everything but small outputs
TMP=$(mktemp -d /tmp/ringscope-oracles.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

cd "$DATA"
# ex-* files belong to make-examples.sh
mkdir -p traces/oracle traces/expected
find traces/oracle traces/expected -type f ! -name 'ex-*' -delete
rm -f traces/crashes.log
manifest=traces/cases.tsv
printf '# case\targs (after "report", paths relative to tests/data)\texpected stdout (relative to tests/data)\texpected exit code\n' >$manifest
rawmanifest=traces/raw-oracles.tsv
printf '# case\tunmodified trace-cmd report stdout (relative to tests/data), for the live differential\n' >$rawmanifest

tc() { env -i PATH=/usr/bin:/bin HOME=/nonexistent LC_ALL=C trace-cmd report "$@"; }

quote_args() {
	local out="" w
	for w in "$@"; do
		case $w in
		*"'"*)
			echo "make-oracles.sh: single quote in argument: $w" >&2
			exit 1
			;;
		*[\ \"\\\|\&\!\<\>\(\)\*\~]* | "") w="'$w'" ;;
		esac
		out+="${out:+ }$w"
	done
	printf '%s' "$out"
}

# store SRC DEST_BASE: writes DEST_BASE, or DEST_BASE.xz when over XZ_LIMIT, unless a file with the
# same content is already stored (then that one is reused); sets STORED_PATH to the path used (not
# printed: a $(...) subshell would lose the STORED table).
declare -A STORED
remember() { STORED[$(sha256sum <"$1" | cut -d' ' -f1)]=$2; }
for f in kvm/kvm-extra.report kvm/kvm-extra.report-noplugins; do remember "$f" "$f"; done
for f in kvm-agent/*.report*.xz; do
	xz -dc "$f" >"$TMP/seed"
	remember "$TMP/seed" "$f"
done
store() {
	local sum
	sum=$(sha256sum <"$1" | cut -d' ' -f1)
	if [ -n "${STORED[$sum]:-}" ]; then
		STORED_PATH=${STORED[$sum]}
		return
	fi
	local dest=$2
	if [ "$(stat -c %s "$1")" -gt $XZ_LIMIT ]; then
		dest+=.xz
		xz -9e -T1 -c "$1" >"$dest"
	else
		cp "$1" "$dest"
	fi
	STORED[$sum]=$dest
	STORED_PATH=$dest
}

# c CASE ARGS...: one manifest line (and its raw oracle in raw-oracles.tsv).
c() {
	local name=$1 rc=0 expected raw
	shift
	tc "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	if [ $rc -gt 128 ] && [ $rc -lt 192 ]; then
		# trace-cmd died of a signal (its stdout is cut at a buffer boundary): no oracle, see crashes.log.
		printf '%s\t%s\texit %s\n' "$name" "$(quote_args "$@")" "$rc" >>traces/crashes.log
		return 0
	fi
	store "$TMP/out" "traces/oracle/$name.out"
	raw=$STORED_PATH
	expected=$raw
	if grep -q ' ==> ' "$TMP/out" && grep -q 'sched_switch:' "$TMP/out"; then
		tc -N "$@" >"$TMP/outN" 2>/dev/null || true
		if ! python3 "$HERE/correct_sched_states.py" "$TMP/out" "$TMP/outN" >"$TMP/fixed" 2>"$TMP/fixlog"; then
			echo "make-oracles.sh: $name: $(cat "$TMP/fixlog")" >&2
			exit 1
		fi
		if ! cmp -s "$TMP/out" "$TMP/fixed"; then
			store "$TMP/fixed" "traces/expected/$name.out"
			expected=$STORED_PATH
			sed "s|^$TMP/out|$name|" "$TMP/fixlog" >>"$TMP/corrections"
		fi
	fi
	printf '%s\t%s\t%s\t%s\n' "$name" "$(quote_args "$@")" "$expected" "$rc" >>$manifest
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
FN=traces/function.dat

# --- basic.dat: every option ---
c basic $B
c basic-i -i $B
c basic-t -t $B
c basic-R -R $B
c basic-N -N $B
c basic-l -l $B
c basic-I -I $B
c basic-S -S $B
c basic-IS -I -S $B
c basic-e -e $B
c basic-P -P $B
c basic-r-sched_switch -r sched_switch $B
c basic-r-two -r sched_switch -r hrtimer_start $B
c basic-n-sched_switch -n sched_switch $B
c basic-n-regex -n 'sched_w.*' $B
c basic-F-event -F sched_switch $B
c basic-F-field -F 'sched_switch: prev_pid != 0 && next_prio < 120' $B
c basic-F-comm -F '.*: COMM == "sleep"' $B
c basic-F-error-no-event -F 'COMM == "sleep"' $B
c basic-F-two -F sched_wakeup -F 'irq_handler_entry: irq == 36' $B
c basic-F-regex -F 'sched_process_exec: filename ~ "*true*"' $B
c basic-F-system -F 'timer' $B
c basic-v-F -v -F 'sched_switch,sched_stat_runtime' $B
c basic-F-error-or -F 'sched_switch || sched_stat_runtime' $B
c basic-F-error-column -F 'sched_switch: prev_pid ==' $B
c basic-F-error-field -F 'sched_switch: no_such_field == 1' $B
c basic-F-v-F -F 'irq' -v -F 'softirq_raise' $B
c basic-cpu0 --cpu 0 $B
c basic-cpu1 --cpu 1 $B
c basic-cpu-list --cpu 0,1 $B
c basic-cpu-range --cpu 0-1 $B
c basic-cpus --cpus $B
c basic-first-event --first-event $B
c basic-last-event --last-event $B
c basic-stat --stat $B
c basic-uname --uname $B
c basic-version --version $B
c basic-ts-offset -i $B --ts-offset 1000000000
c basic-ts-offset-error --ts-offset 1000000000 -i $B
c basic-ts2secs -i $B --ts2secs 2000000000
c basic-ts-diff --ts-diff $B
c basic-ts-check --ts-check $B
c basic-raw-ts --raw-ts $B
c basic-align-ts --align-ts $B
c basic-t-cpu1-F -t --cpu 1 -F 'sched_switch,sched_wakeup' $B

# --- full.dat: all subsystems ---
c full $F
c full-N -N $F
c full-R -R $F
c full-I-S -I -S $F
c full-F-block -F 'block' $F
c full-F-writeback -F 'writeback' $F
c full-F-kmem -F 'kmalloc,kfree,kmem_cache_alloc' $F
c full-F-syscalls -F 'syscalls' $F
c full-F-signal-task-ipi -F 'signal,task,ipi' $F
c full-F-workqueue -F 'workqueue' $F
c full-F-print -F 'print,raw_data' $F
c full-n-kmalloc -n kmalloc -F 'kmalloc' $F
c full-r-hrtimer -r hrtimer_start -F 'hrtimer_start' $F
c full-cpu1 --cpu 1 $F
c full-cpus --cpus $F
c full-stat --stat $F
c full-first-event --first-event $F
c full-last-event --last-event $F
c full-ts-diff --ts-diff -F 'sched' $F
c full-align-ts --align-ts -F 'signal' $F

# --- instances.dat: top buffer + two instances ---
c inst $I
c inst-t -t $I
c inst-N -N $I
c inst-R -R $I
c inst-cpu0 --cpu 0 $I
c inst-F -F 'sched_switch,print' $I
c inst-stat --stat $I
c inst-cpus --cpus $I
c inst-first-event --first-event $I
c inst-last-event --last-event $I
c inst-ts-diff --ts-diff $I

# --- dropped.dat: overflowed 8 KB buffer, drops in the middle ---
c dropped $D
c dropped-t -t $D
c dropped-N -N $D
c dropped-R -R $D
c dropped-cpu1 --cpu 1 $D
c dropped-F -F 'sched_switch' $D
c dropped-stat --stat $D
c dropped-f -f $D
c dropped-E -E $D
c dropped-P -P $D

# --- one recording as v7 zstd, v7 uncompressed, v6 ---
c formats-zstd $Z
c formats-none $N
c formats-v6 $V6
c formats-v6-t -t $V6
c formats-v6-N -N $V6
c formats-v6-R -R $V6
c formats-v6-cpu0 --cpu 0 $V6
c formats-v6-e -e $V6
c formats-v6-stat --stat $V6
c formats-v6-uname --uname $V6
c formats-v6-version --version $V6
c formats-v6-f -f $V6
c formats-v6-E -E $V6
c formats-zstd-E -E $Z
c formats-none-version --version $N
c formats-zstd-first-event --first-event $Z

# --- several files at once ---
c multi-basic-dropped-t -t -i $B -i $D
c multi-formats -i $Z -i $N -i $V6
c multi-ts-offset -i $B --ts-offset 5000000 -i $D --ts-offset -5000000
c multi-cpu1 --cpu 1 -i $B -i $Z
c multi-F -F 'sched_switch' -i $B -i $I
c multi-first-event --first-event -i $B -i $D
# a filter naming an event one file lacks leaves that file unfiltered
c multi-F-missing-event -F 'block_rq_issue' -i $B -i $F

# --- kvm/kvm-extra.dat (a kvm_amd guest booting) ---
c kvm $K
c kvm-t -t $K
c kvm-N -N $K
c kvm-R -R $K
c kvm-F-exit -F 'kvm_exit' $K
c kvm-F-field -F 'kvm_exit: exit_reason == 0x7b' $K
c kvm-n-exit -n kvm_exit $K
c kvm-stat --stat $K
c kvm-cpus --cpus $K
c kvm-raw-ts --raw-ts $K
c kvm-ts-diff --ts-diff $K

# --- kvm-agent host + guest pair ---
c agent-merged -i $H -i $G
c agent-merged-F -F 'sched_switch: prev_pid == 0' -i $H -i $G
c agent-merged-first-event --first-event -i $H -i $G
c agent-guest $G
c agent-guest-N -N $G
c agent-guest-cpu1 --cpu 1 $G
c agent-guest-raw-ts --raw-ts $G
c agent-host-F -F 'kvm_exit: exit_reason == 0x7c' $H
c agent-host-stat --stat $H
c agent-host-cpus --cpus $H
c agent-host-uname --uname $H
c agent-host-version --version $H
c agent-host-last-event --last-event $H

# --- -w (the sched plugin's report option): wakeup latency on sched_switch lines, then the summaries ---
c w-basic -w $B
c w-full -w $F
c w-inst -w $I
c w-dropped -w $D
c w-formats-v6 -w $V6
c w-formats-zstd -w $Z
c w-agent-guest -w $G
c w-kvm -w $K
c w-t -t -w $B
c w-N -N -w $B
c w-R -R -w $B
c w-cpu1 --cpu 1 -w $F
c w-F -w -F 'sched_switch,sched_wakeup' $D
c w-F-no-wakeup -w -F sched_switch $B
c w-F-rt -w -F 'sched_switch: next_prio < 100' -F sched_wakeup $F
c w-v-F -w -v -F 'sched_wakeup_new' $B
c w-multi -w -i $B -i $D

# --- function.dat (make-function-trace.sh: ftrace/function events; the function tracer is locked here) ---
# and -O, the function plugin's options as libtraceevent applies them
c fn $FN
c fn-N -N $FN
c fn-R -R $FN
c fn-t-cpu0 -t --cpu 0 $FN
c fn-O-parent -O parent $FN
c fn-O-ftrace-parent -O ftrace:parent $FN
c fn-O-offset-parent -O offset -O parent $FN
c fn-O-indent -O indent $FN
c fn-O-indent-0 -O ftrace:indent=0 -O parent $FN
c fn-O-twice-same -O parent -O parent $FN
c fn-O-named-and-bare -O parent -O ftrace:parent $FN
c fn-O-bool-words -O parent=true -O offset=TRUE -O indent=false $FN
c fn-O-bare-last -O offset=0 -O ftrace:offset=1 $FN
c fn-O-replaced -O parent=1 -O parent=0 -O offset -O offset=1 $FN
c fn-O-unknown -O foo:parent -O nosuch -O parent=yes $FN

cp "$TMP/corrections" traces/corrections.log 2>/dev/null || : >traces/corrections.log
echo "make-oracles.sh: $(($(wc -l <$manifest) - 1)) cases" >&2
