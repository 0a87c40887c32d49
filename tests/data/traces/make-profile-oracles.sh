#!/bin/bash
# Runs Debian's `trace-cmd report --profile` (3.1.6) on the committed traces and writes the oracles that
# tests/sched/profile_check.py compares `ringscope report --profile` with:
#
#   profile/CASE.out[.xz]   trace-cmd's stdout with the stale sched_switch state letters replaced by the
#                           kernel's names (correct_profile_states.py, from `trace-cmd dump --events`)
#   profile-cases.tsv       CASE <TAB> ARGS (after "report", paths relative to tests/data) <TAB> EXPECTED FILE
#   profile-corrections.log which labels were corrected, per case
#
# trace-cmd prints the events of a task that tie in its sort in hash order, which changes from run to run,
# so the check compares each task's lines as a set, not byte for byte. ARGS are words separated by one
# space (no quoting needed by these cases). Runs from tests/data with a clean environment.
# No case with several files: there trace-cmd prints each record's file prefix (all on one line before the
# profile) and mixes tasks of different files (its task look-up cache ignores the file).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
DATA=$(cd "$HERE/.." && pwd)
TMP=$(mktemp -d /tmp/ringscope-profile-oracles.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

cd "$DATA"
mkdir -p traces/profile
find traces/profile -type f -delete
manifest=traces/profile-cases.tsv
printf '# case\targs (after "report", paths relative to tests/data)\texpected stdout (relative to tests/data)\n' >$manifest
: >"$TMP/corrections"

tc() { env -i PATH=/usr/bin:/bin HOME=/nonexistent LC_ALL=C trace-cmd "$@"; }

# p CASE FORMATS_FILE ARGS...: one manifest line; FORMATS_FILE is the trace whose sched_switch format names
# the states (the multi-file case uses files of one kernel).
p() {
	local name=$1 formats=$2 dest
	shift 2
	tc report "$@" >"$TMP/out"
	tc dump --events "$formats" >"$TMP/formats" 2>/dev/null
	python3 "$HERE/correct_profile_states.py" "$TMP/out" "$TMP/formats" >"$TMP/fixed" 2>"$TMP/fixlog"
	sed "s|^$TMP/out|$name|" "$TMP/fixlog" >>"$TMP/corrections"
	dest=traces/profile/$name.out
	if [ "$(stat -c %s "$TMP/fixed")" -gt 32768 ]; then
		dest+=.xz
		xz -9e -T1 -c "$TMP/fixed" >"$dest"
	else
		cp "$TMP/fixed" "$dest"
	fi
	printf '%s\t%s\t%s\n' "$name" "$*" "$dest" >>$manifest
}

B=traces/basic.dat
F=traces/full.dat
D=traces/dropped.dat
V6=traces/formats-v6.dat
K=kvm/kvm-extra.dat
G=kvm-agent/host-vm2.dat

p profile-basic $B --profile $B
p profile-full $F --profile $F
p profile-dropped $D --profile $D
p profile-formats-v6 $V6 --profile $V6
p profile-agent-guest $G --profile $G
p profile-kvm $K --profile $K
p profile-F $F --profile -F sched_switch,sched_wakeup $F
p profile-cpu1 $B --profile --cpu 1 $B
# -G: irqs and softirqs per CPU; -H: a pair of the user's (it replaces sched_switch's own handling).
p profile-G $F --profile -G $F
p profile-H $B --profile -H sched:sched_waking,pid/sched:sched_switch,next_pid $B

cp "$TMP/corrections" traces/profile-corrections.log
echo "make-profile-oracles.sh: $(($(wc -l <$manifest) - 1)) cases" >&2
