#!/bin/bash
# Records this fixture with ../shared/tools/record-kvm (L1 = Debian 6.1 under QEMU TCG with emulated
# SVM, L2 = the traced guest under kvm_amd in L1), using this folder's l1-job.sh and l2-init, whose L2
# has 2 vCPUs and loads a module (parport_pc) inside the traced window. Then writes the oracles.
#   usage: tests/data/kvm-modules/record.sh WORK     (root; WORK: a scratch folder with ~1 GB free)
#   needs: qemu-system-x86 cpio busybox-static trace-cmd, and the tools folder beside the checkout.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TOOLS=${RECORD_KVM_TOOLS:-$HERE/../../../../shared/tools/record-kvm}
W=$(realpath "$1")
mkdir -p "$W/tools"
cp "$TOOLS"/* "$W/tools/"
cp "$HERE/l1-job.sh" "$HERE/l2-init" "$W/tools/"
# The L2 initramfs also carries parport_pc (and parport, its dependency).
sed -i 's|^mk l2-initrd l2-init \(.*\)$|mk l2-initrd l2-init \1 kernel/drivers/parport/parport_pc.ko|' "$W/tools/make-initrds.sh"
cd "$W/tools"
[ -f "$W/vmlinuz" ] || ./fetch-guest.sh "$W"
./make-initrds.sh "$W"
./l0-run.sh "$W"
cd "$HERE"
cp "$W/out/kvm-modules.dat" .
for f in guest-modules guest-cmdline guest-uname l1-info.txt; do cp "$W/out/$f" .; done
xz -9 -c "$W/out/guest-kallsyms" > guest-kallsyms.xz
"$HERE/make-oracles.sh"
