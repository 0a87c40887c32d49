#!/bin/bash
# Records a large trace (sched + irq + timer + raw_syscalls, a few million events) through tracefs
# and extracts it with trace-cmd, for the report benchmark. Not committed data: writes to $1.
#   record_big.sh OUT.dat [SECONDS] [BUFFER_KB_PER_CPU]
# Needs root and tracefs at /sys/kernel/tracing; serialised with other recordings by
# /tmp/tracefs.lock. Restores the buffer size and disables the events afterwards.
set -euo pipefail
OUT=${1:?usage: record_big.sh OUT.dat [SECONDS] [BUFFER_KB]}
SECS=${2:-10}
KB=${3:-65536}
T=/sys/kernel/tracing
exec 9>/tmp/tracefs.lock
flock 9
old_kb=$(cat $T/buffer_size_kb)
cleanup() {
	echo 0 >$T/tracing_on
	for s in sched irq timer raw_syscalls; do echo 0 >$T/events/$s/enable; done
	echo "$old_kb" >$T/buffer_size_kb
}
trap cleanup EXIT
echo 0 >$T/tracing_on
echo >$T/trace
echo "$KB" >$T/buffer_size_kb
for s in sched irq timer raw_syscalls; do echo 1 >$T/events/$s/enable; done
echo 1 >$T/tracing_on
# A syscall-heavy workload on every CPU: dd copies one byte per read/write pair (4 events per
# byte), plus a fork loop for sched/irq/timer events, for about SECS seconds.
end=$((SECONDS + SECS))
for _ in $(seq "$(nproc)"); do
	timeout "$SECS" dd if=/dev/zero of=/dev/null bs=1 count=400000 2>/dev/null &
	(while [ $SECONDS -lt $end ]; do ls / >/dev/null; done) &
done
wait
echo 0 >$T/tracing_on
trace-cmd extract -o "$OUT" >/dev/null 2>&1
ls -la "$OUT"
