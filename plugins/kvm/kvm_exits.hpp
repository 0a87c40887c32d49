// The analysis behind `ringscope kvm exits`: from kvm_exit / kvm_entry pairs of each vCPU thread,
// per exit reason the count, share and exit-to-entry time (min, mean, p50, p99, max), the same per
// vCPU and per vCPU and reason, and per reason the guest functions that cause the most exits.
//
// Time is from a kvm_exit to the next kvm_entry of the same host thread (the time the host spent
// handling the exit); an exit with no entry after it counts but has no time. Percentiles are
// nearest-rank over all times of the group. Guest functions come from the resolver service like
// the printer's (guest_functions.hpp); unresolved addresses are counted as "[unresolved]".
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include <ringscope/handler.hpp>

#include "exit_reasons.hpp"
#include "guest_functions.hpp"
#include "kvm_fields.hpp"

namespace ringscope::kvm {

struct KvmExitsOptions {
    size_t top_functions = 5;  // per reason
};

class KvmExitsAnalysis final : public EventHandler {
  public:
    explicit KvmExitsAnalysis(KvmExitsOptions opts = {}) : opts_(opts) {}

    std::string_view name() const override { return "kvm-exits"; }
    std::vector<EventMatch> subscriptions() const override {
        return {{"kvm", "kvm_exit"}, {"kvm", "kvm_entry"}};
    }
    void begin(const TraceContext& ctx) override;
    void on_event(const Event& ev) override;
    // Tables "kvm.exits.reasons", "kvm.exits.vcpus", "kvm.exits.vcpu_reasons", "kvm.exits.functions".
    void end(ResultSink& sink) override;

    uint64_t exits() const noexcept { return total_exits_; }

  private:
    struct TypeInfo {
        bool is_exit = false;
        NumField reason, isa, rip, vcpu;
        ExitReasonNames names;
    };
    struct Durations {
        uint64_t count = 0;
        std::vector<uint64_t> ns;  // exit-to-entry times of the exits that had an entry
    };
    struct Reason {
        std::string name;
        uint64_t isa = 0, value = 0;
        Durations d;
        std::unordered_map<std::string_view, uint64_t> functions;  // names live in the resolvers
    };
    struct Vcpu {
        int pid = -1;
        int64_t vcpu = -1;
        Durations d;
        std::unordered_map<size_t, Durations> by_reason;
        // The exit waiting for its entry.
        bool pending = false;
        uint64_t pending_ts = 0;
        size_t pending_reason = 0;
    };

    const TypeInfo& info(const EventType& type);
    size_t reason_index(const TypeInfo& ti, uint64_t isa, uint64_t value);
    static void add_stats(std::vector<Cell>& row, Durations& d);

    KvmExitsOptions opts_;
    std::unordered_map<const EventType*, TypeInfo> types_;
    std::unordered_map<uint64_t, size_t> reason_by_key_;  // isa << 32 | value
    std::vector<Reason> reasons_;
    std::unordered_map<int, Vcpu> vcpus_;
    GuestFunctions guest_;
    TextBuffer scratch_;
    uint64_t total_exits_ = 0;
};

}  // namespace ringscope::kvm
