#!/bin/bash
# Captures raw ftrace sub-buffers (per_cpu/cpuN/trace_pipe_raw) for the ringbuffer tests.
# Run as root on the machine whose kernel is described by header_page/header_event here.
# Uses a private tracefs instance, serializes with flock /tmp/tracefs.lock, restores state on exit.
# Usage: capture.sh [OUTDIR]   (default: the directory of this script)
set -euo pipefail
OUT=$(cd "${1:-$(dirname "$0")}" && pwd)
T=/sys/kernel/tracing
[ -e $T/instances ] || mount -t tracefs nodev $T
INST=$T/instances/ringscope_rb
PAGE=$(getconf PAGESIZE)

exec 9>/tmp/tracefs.lock
flock 9

cleanup() {
    if [ -d "$INST" ]; then
        echo 0 > "$INST/tracing_on" || true
        echo 0 > "$INST/events/enable" || true
        rmdir "$INST" || true
    fi
}
trap cleanup EXIT
cleanup
mkdir "$INST"

# Writes N trace_marker lines of several lengths from CPU $1 (small ones use type_len 1..28,
# lines past 112 bytes of payload need type_len 0 with the length in array[0]).
markers() {
    local cpu=$1 n=$2
    taskset -c "$cpu" bash -c '
        long=$(printf "%0200d" 0)
        for ((i = 0; i < '"$n"'; i++)); do
            if ((i % 7 == 3)); then echo "long $i $long"; else echo "m $i"; fi
        done > '"$INST"'/trace_marker'
}

# Reads what is in the buffer of CPU $1 now, without blocking, into $2 (whole sub-buffers).
drain() {
    local cpu=$1 out=$2 bs=${3:-$PAGE}
    dd if="$INST/per_cpu/cpu$cpu/trace_pipe_raw" of="$out" bs="$bs" iflag=nonblock \
        status=none 2>/dev/null || true
}

reset_instance() {
    echo 0 > "$INST/tracing_on"
    echo 0 > "$INST/events/enable"
    echo > "$INST/trace"
    echo "$1" > "$INST/buffer_size_kb"
}

cp $T/events/header_page "$OUT/header_page"
cp $T/events/header_event "$OUT/header_event"
{ uname -srm; echo "page_size $PAGE"; cat $T/trace_clock; } > "$OUT/kernel.txt"

# 1. Busy pages: sched events and markers on both CPUs, several pages per CPU.
reset_instance 64
echo 1 > "$INST/events/sched/sched_switch/enable"
echo 1 > "$INST/events/sched/sched_wakeup/enable"
echo 1 > "$INST/tracing_on"
markers 0 300 &
markers 1 300 &
wait
echo 0 > "$INST/tracing_on"
drain 0 "$OUT/busy.cpu0.raw"
drain 1 "$OUT/busy.cpu1.raw"

# 2. A long idle gap: the delta does not fit 27 bits, so the kernel writes a time extend.
reset_instance 64
echo 1 > "$INST/tracing_on"
markers 0 3
sleep 1.5
markers 0 3
sleep 0.3
markers 0 2
echo 0 > "$INST/tracing_on"
drain 0 "$OUT/idle_gap.raw"

# 3. Overflow: a tiny buffer in overwrite mode, read page by page while a writer floods it, so
# pages carry the missed-events flags (with the count stored after the data, or unknown).
reset_instance 8
echo 1 > "$INST/tracing_on"
markers 0 20000 &
writer=$!
: > "$OUT/missed.raw"
for i in $(seq 10); do
    dd if="$INST/per_cpu/cpu0/trace_pipe_raw" bs="$PAGE" count=1 iflag=nonblock \
        status=none 2>/dev/null >> "$OUT/missed.raw" || true
    sleep 0.02
done
wait $writer
echo 0 > "$INST/tracing_on"
# The first sub-buffer that reports missed events, alone (kbuffer_read shows the first page only).
for ((i = 0; i < $(stat -c %s "$OUT/missed.raw") / PAGE; i++)); do
    flags=$(od -An -tx1 -j $((i * PAGE + 11)) -N1 "$OUT/missed.raw" | tr -d ' ')
    if (( (0x$flags & 0x80) != 0 )); then
        dd if="$OUT/missed.raw" of="$OUT/missed_page.raw" bs="$PAGE" skip=$i count=1 status=none
        break
    fi
done

# 4. Sub-buffers larger than a page (kernel 6.8+: buffer_subbuf_size_kb).
if [ -e "$INST/buffer_subbuf_size_kb" ]; then
    old=$(cat "$INST/buffer_subbuf_size_kb")
    reset_instance 64
    echo 8 > "$INST/buffer_subbuf_size_kb"
    cp "$INST/events/header_page" "$OUT/header_page.subbuf8k" 2>/dev/null \
        || cp $T/events/header_page "$OUT/header_page.subbuf8k"
    echo 1 > "$INST/tracing_on"
    markers 0 400
    echo 0 > "$INST/tracing_on"
    drain 0 "$OUT/subbuf8k.raw" 8192
    echo "$old" > "$INST/buffer_subbuf_size_kb"
fi
chmod 644 "$OUT"/*.raw "$OUT"/header_* "$OUT"/kernel.txt
ls -l "$OUT"/*.raw
