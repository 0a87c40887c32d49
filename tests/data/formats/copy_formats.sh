#!/bin/sh
# Copies a representative subset of the kernel's event format files (every print fmt construct
# libtraceevent knows, plus formats it cannot parse) from tracefs into this folder, as
# SYSTEM/NAME/format. Run as root on the recording machine: tests/data/formats/copy_formats.sh
set -eu
T=${TRACEFS:-/sys/kernel/tracing}/events
D=$(dirname "$0")
for e in \
  sched/sched_switch sched/sched_wakeup sched/sched_process_exec sched/sched_stat_runtime sched/sched_migrate_task \
  irq/irq_handler_entry irq/softirq_entry irq/softirq_raise \
  timer/hrtimer_start timer/timer_start timer/hrtimer_expire_entry timer/tick_stop \
  raw_syscalls/sys_enter raw_syscalls/sys_exit syscalls/sys_enter_openat syscalls/sys_exit_openat \
  workqueue/workqueue_queue_work workqueue/workqueue_execute_start \
  kmem/kmalloc kmem/kfree kmem/mm_page_alloc kmem/rss_stat \
  block/block_rq_issue block/block_bio_queue \
  writeback/writeback_dirty_folio writeback/writeback_start \
  signal/signal_generate signal/signal_deliver task/task_newtask task/task_rename \
  ipi/ipi_send_cpumask ipi/ipi_raise ipi/ipi_entry \
  kvm/kvm_exit kvm/kvm_entry kvm/kvm_emulate_insn kvm/kvm_inj_exception kvm/kvm_msr \
  kvmmmu/kvm_mmu_get_page \
  net/net_dev_xmit net/netif_receive_skb skb/kfree_skb skb/consume_skb \
  tcp/tcp_probe tcp/tcp_bad_csum sock/inet_sock_set_state fib/fib_table_lookup icmp/icmp_send \
  neigh/neigh_cleanup_and_release bridge/br_mdb_full btrfs/add_delayed_ref_head btrfs/btrfs_ordered_sched \
  dma/dma_map_sg dma/dma_alloc_sgt jbd2/jbd2_run_stats maple_tree/ma_op ras/mc_event \
  amd_cpu/amd_pstate_perf printk/console rcu/rcu_utilization mmap_lock/mmap_lock_start_locking \
  ftrace/function ftrace/funcgraph_entry ftrace/funcgraph_exit ftrace/print ftrace/bprint \
  ftrace/bputs ftrace/kernel_stack ftrace/user_stack ftrace/raw_data ftrace/context_switch \
  ftrace/wakeup ftrace/mmiotrace_rw ftrace/branch ftrace/hwlat ftrace/osnoise ftrace/timerlat \
  ftrace/func_repeats
do
  if [ -r "$T/$e/format" ]; then
    mkdir -p "$D/$e"
    cat "$T/$e/format" > "$D/$e/format"
  fi
done
