#!/bin/sh
# Copies the kvm event formats of the running kernel (here 6.18, kvm_amd) from tracefs; the kvm
# plugin tests build records on them. Run as root: sh copy-formats.sh
set -e
cd "$(dirname "$0")"
T=/sys/kernel/tracing/events
for e in kvm/kvm_exit kvm/kvm_entry kvm/kvm_emulate_insn kvm/kvm_nested_vmexit \
         kvm/kvm_nested_vmexit_inject kvmmmu/kvm_mmu_get_page kvmmmu/kvm_mmu_sync_page \
         kvmmmu/kvm_mmu_unsync_page kvmmmu/kvm_mmu_prepare_zap_page; do
  cp "$T/$e/format" "$(basename "$e")"
done
uname -r > KERNEL
