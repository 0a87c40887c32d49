#!/usr/bin/env bash
# Runs every libFuzzer target for SECONDS each (default 30) on seed corpora made from the committed
# test data (plus tests/fuzz/seeds/TARGET/). Builds into build-fuzz/ with clang (ASan + UBSan).
# Prints executions per target; exits 1 on a crash (the reproducer is kept in build-fuzz/crashes/;
# make it a regression test: tests/robustness/regressions/README.md).
#   scripts/fuzz.sh [SECONDS] [TARGET...]      e.g. scripts/fuzz.sh 600 fuzz_trace_dat
# FUZZ_JOBS=N runs N targets at once (default 1: CI machines are small).
# FUZZ_SEED=N fixes libFuzzer's random seed (scripts/test.sh sets 1): with the same seed corpus the
# inputs tried are then the same sequence on every machine, and a shorter run is a prefix of a longer
# one, so a long run here covers what CI's 30 s will try. Unset, each run explores from a new seed.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-30}
shift || true
jobs=${FUZZ_JOBS:-1}
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRINGSCOPE_FUZZ=ON \
  -DRINGSCOPE_BENCH=OFF >/dev/null
if (($#)); then
  targets="$*"
else
  targets=$(cd build-fuzz && ninja -t targets all | sed -n 's/^\(fuzz_[a-z0-9_]*\): .*/\1/p' | sort -u)
fi
# shellcheck disable=SC2086
# The build's output only when it fails (a CI log then says why, instead of just stopping).
if ! ninja -C build-fuzz -j "$(nproc)" $targets >build-fuzz/build.log 2>&1; then
  tail -n 40 build-fuzz/build.log >&2
  echo "fuzz.sh: the fuzz targets did not build (build-fuzz/build.log)" >&2
  exit 1
fi

corpus=build-fuzz/corpus
mkdir -p build-fuzz/crashes
seed() {  # seed TARGET FILES...
  local dir=$corpus/$1
  shift
  mkdir -p "$dir"
  for f in "$@"; do [ -f "$f" ] && cp -f "$f" "$dir/$(basename "$(dirname "$f")")_$(basename "$f")"; done
  return 0
}
seed fuzz_trace_dat tests/data/traces/*.dat tests/data/io/*.dat tests/robustness/regressions/*.dat
seed fuzz_sub_buffer tests/data/ringbuffer/*.raw
seed fuzz_event_format tests/data/formats/*/*/format tests/data/printers/formats/*/*/format
seed fuzz_kallsyms tests/data/symbols/*
seed fuzz_filter
seed fuzz_ipt_packets tests/data/ipt/*.pt
seed fuzz_ipt_query tests/data/ipt/*.pt
# fuzz_ipt_flow's input: 4 bytes of options, then (no code of its own) the first 2 KiB of a trace of
# its program (two PSB periods: small inputs run faster).
mkdir -p "$corpus/fuzz_ipt_flow"
for f in tests/data/ipt/flow/*.pt; do
  for opts in 01000000 00200008 1b000000 66204000; do
    { printf '%b' "$(echo "$opts" | sed 's/../\\x&/g')"; head -c 2048 "$f"; } >"$corpus/fuzz_ipt_flow/$(basename "$f" .pt)_$opts"
  done
done
seed fuzz_config tests/data/runs/*.yaml
for t in $targets; do  # committed seeds (small hand-made inputs where the test data has none)
  [ -d "tests/fuzz/seeds/$t" ] && seed "$t" "tests/fuzz/seeds/$t"/*
done

run_one() {  # run_one TARGET: one line of result; the log in build-fuzz/TARGET.log
  local t=$1 bin log=build-fuzz/$1.log
  bin=$(find build-fuzz/fuzz build-fuzz/tests -maxdepth 1 -name "$t" -type f -perm -u+x 2>/dev/null | head -n 1)
  if [ -z "$bin" ]; then
    echo "$t: FAILED (not built)"
    return 1
  fi
  mkdir -p "$corpus/$t"
  if ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    "$bin" ${FUZZ_SEED:+-seed="$FUZZ_SEED"} -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 -close_fd_mask=1 -print_final_stats=1 \
    -artifact_prefix="build-fuzz/crashes/$t-" "$corpus/$t" >"$log" 2>&1; then
    local runs cov
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
    echo "$t: ok (${runs:-?} executions in ${secs}s, ${cov:-cov: ?}, corpus $(find "$corpus/$t" -type f | wc -l))"
  else
    echo "$t: FAILED (see $log; reproducer in build-fuzz/crashes/)"
    grep -m 1 -A 12 -E '^==[0-9]+==ERROR|runtime error|ERROR: libFuzzer' "$log" || tail -n 30 "$log"
    return 1
  fi
}
export -f run_one
export secs corpus FUZZ_SEED

# shellcheck disable=SC2086
if printf '%s\n' $targets | xargs -P "$jobs" -I{} bash -c 'run_one {}'; then exit 0; else exit 1; fi
