#!/bin/sh
# Writes function.dat: basic.dat's metadata (formats, cmdlines, the kallsyms lines the calls use)
# and two CPUs of ftrace/function events built by tests/report/tools/make_function_trace.cpp.
# This machine's function tracer is locked (writing ftrace_enabled is refused), so the
# function plugin's printing and report -O are checked against trace-cmd on this written file.
#   sh tests/data/traces/make-function-trace.sh BUILD_DIR
set -e
TOOL=$(readlink -f "${1:?usage: make-function-trace.sh BUILD_DIR}")/tests/make_function_trace
cd "$(dirname "$0")"
"$TOOL" basic.dat function.dat
