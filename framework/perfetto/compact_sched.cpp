#include "framework/perfetto/compact_sched.hpp"

#include "framework/perfetto/ftrace_schema.hpp"
#include "framework/perfetto/proto_writer.hpp"

namespace ringscope::perfetto {
namespace {

// A packed int32/int64 element: the value's two's complement as a varint, as protobuf writes it.
void put_signed(std::string& column, int64_t v) {
    put_varint(column, static_cast<uint64_t>(v));
}

void put_packed(std::string& out, uint32_t number, const std::string& column) {
    if (!column.empty()) put_bytes(out, number, column);
}

}  // namespace

uint32_t CompactSched::intern(std::string_view comm) {
    auto [it, added] = index_.try_emplace(std::string(comm), static_cast<uint32_t>(index_.size()));
    if (added) put_bytes(table_, field::kCompactInternTable, comm);
    return it->second;
}

void CompactSched::add_switch(uint64_t ts, int64_t prev_state, int32_t next_pid, int32_t next_prio,
                              std::string_view next_comm) {
    put_varint(sw_ts_, ts - last_switch_ts_);  // wraps as trace processor's int64 sum expects
    last_switch_ts_ = ts;
    put_signed(sw_state_, prev_state);
    put_signed(sw_pid_, next_pid);
    put_signed(sw_prio_, next_prio);
    put_varint(sw_comm_, intern(next_comm));
    ++switches_;
}

void CompactSched::add_waking(uint64_t ts, int32_t pid, int32_t target_cpu, int32_t prio,
                              std::string_view comm, uint32_t common_flags) {
    put_varint(wk_ts_, ts - last_waking_ts_);
    last_waking_ts_ = ts;
    put_signed(wk_pid_, pid);
    put_signed(wk_cpu_, target_cpu);
    put_signed(wk_prio_, prio);
    put_varint(wk_comm_, intern(comm));
    put_varint(wk_flags_, common_flags);
    ++wakings_;
}

size_t CompactSched::size() const noexcept {
    size_t n = table_.size();
    for (const std::string* c : {&sw_ts_, &sw_state_, &sw_pid_, &sw_prio_, &sw_comm_, &wk_ts_, &wk_pid_,
                                 &wk_cpu_, &wk_prio_, &wk_comm_, &wk_flags_})
        n += c->size() + 4;
    return n;
}

void CompactSched::write(Bytes& bundle) {
    if (empty()) return;
    std::string m;
    m.reserve(size());
    put_packed(m, field::kCompactSwitchTimestamp, sw_ts_);
    put_packed(m, field::kCompactSwitchPrevState, sw_state_);
    put_packed(m, field::kCompactSwitchNextPid, sw_pid_);
    put_packed(m, field::kCompactSwitchNextPrio, sw_prio_);
    m += table_;
    put_packed(m, field::kCompactSwitchNextCommIndex, sw_comm_);
    put_packed(m, field::kCompactWakingTimestamp, wk_ts_);
    put_packed(m, field::kCompactWakingPid, wk_pid_);
    put_packed(m, field::kCompactWakingTargetCpu, wk_cpu_);
    put_packed(m, field::kCompactWakingPrio, wk_prio_);
    put_packed(m, field::kCompactWakingCommIndex, wk_comm_);
    put_packed(m, field::kCompactWakingCommonFlags, wk_flags_);
    put_bytes(bundle, field::kBundleCompactSched, m);
    *this = CompactSched{};
}

}  // namespace ringscope::perfetto
