#!/bin/bash
# Records ringscope's test traces on this machine through tracefs.
#
# `trace-cmd record` / `trace-cmd start` cannot run here (the function tracer is locked), so events are
# enabled by hand, a short workload runs, and `trace-cmd extract` (or, where we read the ring buffer
# ourselves, `trace-cmd restore`) writes the file. See README.md for what each file holds.
#
# Usage: record.sh [TARGET...]    TARGET: basic full instances dropped formats (default: all of them)
# Output goes next to this script (override with OUT=DIR). Needs root, tracefs, trace-cmd, python3.
#
# Every recording holds /tmp/tracefs.lock (colleagues trace too) and the tracing state is restored on
# exit, also on failure: events and filters off, buffer size, overwrite, instances removed, tracing_on.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$HERE}
T=/sys/kernel/tracing
INSTANCES=()
FILTERED=()
READERS=()

exec 9>/tmp/tracefs.lock
flock 9
WORK=$(mktemp -d /tmp/ringscope-record.XXXXXX)

orig_on=$(cat $T/tracing_on)
# "7 (expanded: 1408)" before the buffer was first used: the effective size is the expanded one.
orig_kb=$(sed -E 's/.*expanded: ([0-9]+).*/\1/' $T/buffer_size_kb)
orig_overwrite=$(cat $T/options/overwrite)
cp $T/set_event "$WORK/orig_set_event"

restore_state() {
	set +e
	for pid in "${READERS[@]}"; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
	echo 0 >$T/tracing_on
	echo >$T/set_event
	for f in "${FILTERED[@]}"; do echo 0 >"$f"; done
	for i in "${INSTANCES[@]}"; do
		# trace-cmd extract -B removes the instances it read; remove what is left.
		[ -d "$T/instances/$i" ] || continue
		echo 0 >"$T/instances/$i/tracing_on"
		echo >"$T/instances/$i/set_event"
		rmdir "$T/instances/$i"
	done
	echo "$orig_kb" >$T/buffer_size_kb
	echo "$orig_overwrite" >$T/options/overwrite
	echo >$T/trace
	while read -r ev; do echo "$ev" >>$T/set_event; done <"$WORK/orig_set_event"
	echo "$orig_on" >$T/tracing_on
	rm -rf "$WORK"
}
trap restore_state EXIT
trap 'exit 1' INT TERM HUP

log() { echo "record.sh: $*" >&2; }

# begin DIR KB: tracing off, no events, empty buffer of KB per CPU in tracefs directory DIR.
begin() {
	echo 0 >"$1/tracing_on"
	echo >"$1/set_event"
	echo "$2" >"$1/buffer_size_kb"
	echo >"$1/trace"
}

# enable DIR EVENT...: EVENT is a system (sched) or system/event (syscalls/sys_enter_openat).
enable() {
	local dir=$1
	shift
	for e in "$@"; do echo 1 >"$dir/events/$e/enable"; done
}

# filter DIR SYSTEM/EVENT EXPR: a kernel-side event filter (cleared again on exit).
filter() {
	echo "$3" >"$1/events/$2/filter"
	FILTERED+=("$1/events/$2/filter")
}

new_instance() {
	mkdir "$T/instances/$1"
	INSTANCES+=("$1")
}

# The workload: short and the same every run. $1 = tracefs dir whose trace_marker gets the prints.
workload() {
	local dir=$1 f="$WORK/blockfile" child
	echo "ringscope workload start" >"$dir/trace_marker"
	for i in 1 2 3; do /bin/true; done
	sh -c 'exit 0'
	sleep 0.02
	# signal: USR1 kills a child sleep (signal_generate + signal_deliver).
	sleep 5 &
	child=$!
	sleep 0.01
	kill -USR1 "$child"
	{ wait "$child"; } 2>/dev/null || true
	echo "ringscope signal sent to $child" >"$dir/trace_marker"
	# block + writeback: write a file, fsync it, sync.
	dd if=/dev/zero of="$f" bs=4k count=32 conv=fsync status=none
	sync
	rm -f "$f"
	if [ -w "$dir/trace_marker_raw" ]; then
		# trace_marker_raw takes a 4-byte id then binary payload.
		printf '\x2a\x00\x00\x00\x01\x02\x03\x04\x05\x06\x07\x08' >"$dir/trace_marker_raw"
	fi
	sleep 0.02
	echo "ringscope workload end" >"$dir/trace_marker"
}

check_no_drops() {
	trace-cmd report "$1" >"$WORK/check.report" 2>/dev/null
	if grep -q 'EVENTS DROPPED' "$WORK/check.report"; then
		log "$1 has dropped events; rerun with a bigger buffer"
		return 1
	fi
}

# Build a directory that looks like tracefs for `trace-cmd restore -c -t`, holding only the formats of
# the given systems (plus ftrace's): keeps uncompressed files small.
fake_tracefs() {
	local dst=$1
	shift
	mkdir -p "$dst/events"
	cat $T/events/header_page >"$dst/events/header_page"
	cat $T/events/header_event >"$dst/events/header_event"
	for sys in ftrace "$@"; do
		for fmt in $T/events/"$sys"/*/format; do
			local ev
			ev=$(basename "$(dirname "$fmt")")
			mkdir -p "$dst/events/$sys/$ev"
			cat "$fmt" >"$dst/events/$sys/$ev/format"
		done
	done
	cat $T/printk_formats >"$dst/printk_formats"
	cat $T/saved_cmdlines >"$dst/saved_cmdlines"
	cat $T/trace_clock >"$dst/trace_clock"
}

# restore_small OUTFILE RAWDIR NCPUS SYSTEM...: make a trace.dat from raw pages with trace-cmd restore,
# with the formats of SYSTEMs only and a kallsyms cut down to what the events need (two passes: the
# first, with the full kallsyms, finds the addresses; the result must print identically).
restore_small() {
	local outfile=$1 raw=$2 ncpus=$3
	shift 3
	local fake="$WORK/fake-$(basename "$outfile" .dat)" raws=() c
	fake_tracefs "$fake" "$@"
	for ((c = 0; c < ncpus; c++)); do raws+=("$raw/raw.cpu$c"); done
	# Without symbols every address prints as a number: collect them from -R and the plain report.
	: >"$WORK/kallsyms.none"
	trace-cmd restore -c -t "$fake" -k "$WORK/kallsyms.none" -o "$WORK/head-none.dat" >/dev/null
	trace-cmd restore -i "$WORK/head-none.dat" -o "$WORK/nosyms.dat" "${raws[@]}" >/dev/null
	{ trace-cmd report -R "$WORK/nosyms.dat" && trace-cmd report "$WORK/nosyms.dat"; } >"$WORK/nosyms.txt"
	cat /proc/kallsyms >"$WORK/kallsyms.full"
	trace-cmd restore -c -t "$fake" -k "$WORK/kallsyms.full" -o "$WORK/head-full.dat" >/dev/null
	trace-cmd restore -i "$WORK/head-full.dat" -o "$WORK/full.dat" "${raws[@]}" >/dev/null
	python3 "$HERE/kallsyms_subset.py" "$WORK/kallsyms.full" "$WORK/nosyms.txt" >"$WORK/kallsyms.small"
	trace-cmd restore -c -t "$fake" -k "$WORK/kallsyms.small" -o "$WORK/head.dat" >/dev/null
	trace-cmd restore -i "$WORK/head.dat" -o "$outfile" "${raws[@]}" >/dev/null
	trace-cmd report "$WORK/full.dat" >"$WORK/full.report"
	trace-cmd report "$outfile" >"$WORK/small.report"
	if ! cmp -s "$WORK/full.report" "$WORK/small.report"; then
		log "$outfile: the cut-down kallsyms changes the report (diff in /tmp/ringscope-record-kallsyms.diff)"
		diff "$WORK/full.report" "$WORK/small.report" >/tmp/ringscope-record-kallsyms.diff
		return 1
	fi
	log "$outfile: kallsyms cut to $(wc -l <"$WORK/kallsyms.small") symbols"
}

# start_readers DIR RAWDIR DELAY: one read_raw.py per CPU.
start_readers() {
	local dir=$1 raw=$2 delay=$3 c
	mkdir -p "$raw"
	rm -f "$raw/stop"
	for ((c = 0; c < $(nproc); c++)); do
		python3 "$HERE/read_raw.py" "$dir/per_cpu/cpu$c/trace_pipe_raw" "$raw/raw.cpu$c" "$raw/stop" "$delay" &
		READERS+=($!)
	done
}

stop_readers() {
	touch "$1/stop"
	for pid in "${READERS[@]}"; do wait "$pid"; done
	READERS=()
}

# basic.dat: sched + irq + timer, v7 zstd (trace-cmd extract's default).
rec_basic() {
	begin $T 4096
	enable $T sched irq timer
	echo 1 >$T/tracing_on
	workload $T
	echo 0 >$T/tracing_on
	echo >$T/set_event
	trace-cmd extract -o "$OUT/basic.dat" >/dev/null
	check_no_drops "$OUT/basic.dat"
}

# full.dat: every subsystem the tests need, v7 zstd.
rec_full() {
	begin $T 8192
	enable $T sched irq timer workqueue block writeback signal task ipi
	enable $T kmem/kmalloc kmem/kfree kmem/kmem_cache_alloc kmem/mm_page_alloc kmem/mm_page_free
	for sc in openat close write kill wait4 execve clone; do
		enable $T syscalls/sys_enter_$sc syscalls/sys_exit_$sc
	done
	# kmem fires on every allocation: keep the workload's and its kworkers' only (comm filter).
	for e in kmalloc kfree kmem_cache_alloc mm_page_alloc mm_page_free; do
		filter $T kmem/$e 'common_pid != 0 && (comm == "dd" || comm == "sync" || comm == "sleep" || comm == "sh" || comm ~ "kworker*")'
	done
	echo 1 >$T/tracing_on
	workload $T
	echo 0 >$T/tracing_on
	echo >$T/set_event
	trace-cmd extract -o "$OUT/full.dat" >/dev/null
	check_no_drops "$OUT/full.dat"
}

# instances.dat: the top buffer and two instances with different events (extract -t -B -B).
rec_instances() {
	new_instance ringscope_a
	new_instance ringscope_b
	begin $T 2048
	begin $T/instances/ringscope_a 1024
	begin $T/instances/ringscope_b 1024
	enable $T sched/sched_process_fork sched/sched_process_exec sched/sched_process_exit
	enable $T/instances/ringscope_a sched/sched_switch sched/sched_wakeup sched/sched_waking
	enable $T/instances/ringscope_b irq/softirq_entry irq/softirq_exit timer/hrtimer_start timer/hrtimer_expire_entry
	echo 1 >$T/instances/ringscope_a/tracing_on
	echo 1 >$T/instances/ringscope_b/tracing_on
	echo 1 >$T/tracing_on
	echo "ringscope marker in ringscope_a" >$T/instances/ringscope_a/trace_marker
	echo "ringscope marker in ringscope_b" >$T/instances/ringscope_b/trace_marker
	workload $T
	echo 0 >$T/tracing_on
	echo 0 >$T/instances/ringscope_a/tracing_on
	echo 0 >$T/instances/ringscope_b/tracing_on
	trace-cmd extract -t -B ringscope_a -B ringscope_b -o "$OUT/instances.dat" >/dev/null
	check_no_drops "$OUT/instances.dat"
}

# dropped.dat: an 8 KB buffer read slowly, so the writer laps the reader: dropped events in the middle.
rec_dropped() {
	# Wanted: drops in the middle of the trace, both with a count ("[N EVENTS DROPPED]") and without
	# ("[EVENTS DROPPED]": the kernel stores the count only when the page has room for it). Whether a
	# page has room is chance, so try a few times.
	local attempt
	for attempt in 1 2 3 4 5 6 7 8; do
		record_dropped_once "$WORK/raw-dropped-$attempt"
		restore_small "$WORK/dropped-$attempt.dat" "$WORK/raw-dropped-$attempt" "$(nproc)" sched irq timer
		trace-cmd report "$WORK/dropped-$attempt.dat" >"$WORK/check.report"
		if grep -q '^CPU:[0-9]* \[[0-9]* EVENTS DROPPED\]' "$WORK/check.report" &&
			grep -q '^CPU:[0-9]* \[EVENTS DROPPED\]' "$WORK/check.report"; then
			cp "$WORK/dropped-$attempt.dat" "$OUT/dropped.dat"
			log "dropped.dat: attempt $attempt has both kinds of drop lines"
			return 0
		fi
	done
	log "no attempt gave both kinds of drop lines"
	return 1
}

record_dropped_once() {
	local raw=$1 burst
	begin $T 8
	enable $T sched irq timer
	start_readers $T "$raw" 0.05
	sleep 0.5 # the readers are up before tracing starts: no drop at the very start
	echo 1 >$T/tracing_on
	workload $T
	# bursts of forks while the slow readers sleep: the writer laps them mid-trace
	for burst in 1 2 3; do
		for i in $(seq 30); do /bin/true; done
		sleep 0.2
		echo "ringscope after burst $burst" >$T/trace_marker
	done
	echo 0 >$T/tracing_on
	echo >$T/set_event
	stop_readers "$raw"
}

# formats-{zstd,none,v6}.dat: one recording in three file formats (converted by trace-cmd convert).
rec_formats() {
	local raw="$WORK/raw-formats"
	begin $T 4096
	enable $T sched/sched_switch sched/sched_wakeup sched/sched_waking sched/sched_process_fork \
		sched/sched_process_exec sched/sched_process_exit irq timer/hrtimer_start \
		timer/hrtimer_expire_entry timer/hrtimer_expire_exit timer/timer_start timer/timer_expire_entry
	start_readers $T "$raw" 0
	echo 1 >$T/tracing_on
	workload $T
	echo 0 >$T/tracing_on
	echo >$T/set_event
	stop_readers "$raw"
	restore_small "$WORK/formats.dat" "$raw" "$(nproc)" sched irq timer
	trace-cmd convert -i "$WORK/formats.dat" -o "$OUT/formats-zstd.dat" --compression zstd >/dev/null
	trace-cmd convert -i "$WORK/formats.dat" -o "$OUT/formats-none.dat" --compression none >/dev/null
	trace-cmd convert -i "$WORK/formats.dat" -o "$OUT/formats-v6.dat" --file-version 6 >/dev/null
	check_no_drops "$OUT/formats-zstd.dat"
}

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(basic full instances dropped formats)
for t in "${targets[@]}"; do
	case $t in
	basic | full | instances | dropped | formats) ;;
	*)
		log "unknown target $t"
		exit 2
		;;
	esac
	log "recording $t"
	"rec_$t"
done
