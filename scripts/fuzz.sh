#!/usr/bin/env bash
# Runs every libFuzzer target for SECONDS each (default 30) on seed corpora made from the committed
# test data. Builds into build-fuzz/ with clang. Prints executions per target; exits 1 on a crash
# (the reproducer is kept in build-fuzz/crashes/).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-30}
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRINGSCOPE_FUZZ=ON \
  -DRINGSCOPE_BENCH=OFF >/dev/null
targets=$(cd build-fuzz && ninja -t targets all | sed -n 's/^\(fuzz_[a-z0-9_]*\): .*/\1/p' | sort -u)
ninja -C build-fuzz $targets >/dev/null

corpus=build-fuzz/corpus
mkdir -p build-fuzz/crashes
seed() {  # seed TARGET FILES...
  local dir=$corpus/$1
  shift
  mkdir -p "$dir"
  for f in "$@"; do [ -f "$f" ] && cp -f "$f" "$dir/$(basename "$(dirname "$f")")_$(basename "$f")"; done
  return 0
}
seed fuzz_trace_dat tests/data/traces/*.dat tests/data/io/*.dat
seed fuzz_sub_buffer tests/data/ringbuffer/*.raw
seed fuzz_event_format tests/data/formats/*/*/format
seed fuzz_kallsyms tests/data/symbols/*
seed fuzz_filter /dev/null
seed fuzz_ipt_packets tests/data/ipt/*.pt
seed fuzz_ipt_query tests/data/ipt/*.pt

failed=0
for t in $targets; do
  log=build-fuzz/$t.log
  if build-fuzz/fuzz/$t -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 \
      -artifact_prefix=build-fuzz/crashes/$t- "$corpus/$t" >"$log" 2>&1; then
    runs=$(grep -o 'Done [0-9]* runs' "$log" | tail -n 1)
    echo "$t: ok ($runs in ${secs}s)"
  else
    echo "$t: FAILED (see $log)"; tail -n 30 "$log"; failed=1
  fi
done
exit $failed
