#!/bin/bash
# The reference tools' outputs on kvm-modules.dat (Debian trace-cmd 3.1.6 / libtraceevent 1.7.1):
#   kvm-modules.report            trace-cmd report (libtraceevent's kvm plugin)
#   kvm-modules.report-noplugins  trace-cmd report -N
#   kvm-modules.guest-funcs       tep_plugin_kvm_get_func(3)'s example (tests/oracles/kvm_guest_funcs.c,
#                                 built with -rdynamic) with the guest's kallsyms
# usage: make-oracles.sh [BUILD_DIR]   (BUILD_DIR has tests/oracles/kvm_guest_funcs; default: build/)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=${1:-$HERE/../../../build}
cd "$HERE"
tc() { env -i PATH=/usr/bin:/bin HOME=/nonexistent LC_ALL=C trace-cmd report "$@"; }
tc kvm-modules.dat > kvm-modules.report
tc -N kvm-modules.dat > kvm-modules.report-noplugins
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
xz -dc guest-kallsyms.xz > "$TMP/guest-kallsyms"
env -i PATH=/usr/bin:/bin HOME=/nonexistent LC_ALL=C "$BUILD/tests/oracles/kvm_guest_funcs" kvm-modules.dat \
    "$TMP/guest-kallsyms" > kvm-modules.guest-funcs
for f in kvm-modules.report kvm-modules.report-noplugins kvm-modules.guest-funcs; do
    [ "$(stat -c %s $f)" -gt 65536 ] && xz -9 -f $f
done
ls -la
