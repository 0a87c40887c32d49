#!/usr/bin/env bash
# Sets up and runs every test: a warnings-as-errors build with ctest, then the same tests under
# AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/), then, when clang is installed, every
# libFuzzer target for FUZZ_SECONDS each (default 30; 0 skips; scripts/fuzz.sh) with FUZZ_SEED (default 1:
# the same inputs on every machine). Prints the summaries.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

scripts/setup.sh -DRINGSCOPE_WERROR=ON
echo "== tests (RelWithDebInfo, -Werror)"
ctest --test-dir build --output-on-failure -j "$jobs" --timeout 600

echo "== tests (ASan + UBSan)"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DRINGSCOPE_WERROR=ON -DRINGSCOPE_SANITIZE=ON \
  -DRINGSCOPE_BENCH=OFF >/dev/null
ninja -C build-asan
# Left out under the sanitizers: the four slowest there (11 min of test time, ~6 min on 2 cores),
# each a repeat of code paths other tests run under them too: the live trace-cmd sweep (the same
# report paths as the committed-oracle tests), protoc decoding convert's output (protoc's time, not
# ours), and the without-AVX-512 reruns of the ipt parallel and differential binaries (the scalar
# paths run in ipt_unit_test.without_avx512). All four run in the -Werror pass above, as does
# TraceCmd31LiveProfile (48 traces against live trace-cmd: under the sanitizers the committed
# traces' sched.profile_vs_trace_cmd cases run the same --profile code). So do the
# browser tests (label browser): what they add is chromium's view of the page; the server they
# talk to runs under the sanitizers in tests/view.
asan_skip='^(TraceCmd31LiveProfile\..*|ReportConformance\.EveryCaseWithoutPluginsMatchesLiveTraceCmd|PerfettoConvert\.ProtocDecodesItWithPerfettosSchema|ipt_parallel_test\.without_avx512|ipt_differential_test\.without_avx512)$'
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j "$jobs" --timeout 900 -E "$asan_skip" -LE browser

fuzz_secs=${FUZZ_SECONDS:-30}
if [ "$fuzz_secs" != 0 ] && command -v clang++ >/dev/null 2>&1; then
  echo "== fuzzing (${fuzz_secs}s per target)"
  FUZZ_SEED=${FUZZ_SEED:-1} scripts/fuzz.sh "$fuzz_secs"
else
  echo "== fuzzing skipped (no clang++ or FUZZ_SECONDS=0)"
fi
