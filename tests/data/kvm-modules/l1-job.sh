#!/bin/bash
# Runs inside L1 (see record.sh); $1 = WORK. One traced window of an L2 run with 2 vCPUs:
# tracing_on follows the guest's KVMH-WINDOW-BEGIN/END console lines, then trace-cmd extract.
W=$1; O=$W/out; T=/sys/kernel/tracing
cd "$O" || exit 1
{
  echo "uname: $(uname -a)"
  echo "trace-cmd: $(trace-cmd --version 2>&1 | grep version)"
  echo "qemu: $(qemu-system-x86_64 --version | head -1)"
  echo "trace_clock: $(cat $T/trace_clock)"
} > "$O/l1-info.txt"
evs="kvm_exit kvm_entry kvm_pio kvm_msr"
mkdir -p /run/share
echo 0 > $T/tracing_on; echo > $T/trace
echo 16384 > $T/buffer_size_kb
for e in $evs; do echo 1 > $T/events/kvm/$e/enable; done
timeout 1200 qemu-system-x86_64 -enable-kvm -cpu host -smp 2 -m 512 -nographic -no-reboot \
    -name l2,debug-threads=on -kernel "$W/vmlinuz" -initrd "$W/l2-initrd.gz" \
    -append "console=ttyS0 nokaslr panic=-1" \
    -virtfs local,path=/run/share,mount_tag=out,security_model=none < /dev/null |
  while IFS= read -r line; do
    case "$line" in
      *KVMH-WINDOW-BEGIN*) echo 1 > $T/tracing_on ;;
      *KVMH-WINDOW-END*)   echo 0 > $T/tracing_on ;;
    esac
    printf '%s\n' "$line" >> "$O/l2-console.log"
  done
echo 0 > $T/tracing_on
for e in $evs; do echo 0 > $T/events/kvm/$e/enable; done
trace-cmd extract -o "$O/kvm-modules.dat" > "$O/extract.log" 2>&1
echo "extract rc=$?" >> "$O/l1-info.txt"
cp -r /run/share/. "$O/"
echo "all done" >> "$O/l1-info.txt"
