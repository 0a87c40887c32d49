// FtraceEventBundle.CompactSched, as traced_probes writes it with `compact_sched` on: a bundle's
// sched_switch and sched_waking events as packed columns instead of one FtraceEvent each
// (timestamps as deltas, comms interned per bundle). What it leaves out is what traced_probes
// leaves out: switch's prev_comm/prev_pid/prev_prio (trace processor takes them from the previous
// switch on the CPU), waking's success, and both events' common_pid (and switch's common_flags).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "framework/perfetto/proto_writer.hpp"

namespace ringscope::perfetto {

class CompactSched {
  public:
    void add_switch(uint64_t ts, int64_t prev_state, int32_t next_pid, int32_t next_prio,
                    std::string_view next_comm);
    void add_waking(uint64_t ts, int32_t pid, int32_t target_cpu, int32_t prio, std::string_view comm,
                    uint32_t common_flags);

    bool empty() const noexcept { return switches_ == 0 && wakings_ == 0; }
    // The bytes the message holds so far (without its key and length).
    size_t size() const noexcept;
    // Appends the message as FtraceEventBundle.compact_sched to BUNDLE and starts a new one.
    void write(Bytes& bundle);

  private:
    uint32_t intern(std::string_view comm);

    std::unordered_map<std::string, uint32_t> index_;
    std::string table_;  // intern_table entries, encoded
    std::string sw_ts_, sw_state_, sw_pid_, sw_prio_, sw_comm_;
    std::string wk_ts_, wk_pid_, wk_cpu_, wk_prio_, wk_comm_, wk_flags_;
    uint64_t last_switch_ts_ = 0, last_waking_ts_ = 0;
    size_t switches_ = 0, wakings_ = 0;
};

}  // namespace ringscope::perfetto
