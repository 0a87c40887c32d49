// The analysis behind `ringscope kvm exits`: from kvm_exit / kvm_entry pairs of each vCPU thread,
// per exit reason the count, share and exit-to-entry time (min, mean, p50, p99, max), the same per
// vCPU and per vCPU and reason, and per reason the guest functions that cause the most exits.
//
// Time is from a kvm_exit to the next kvm_entry of the same host thread (the time the host spent
// handling the exit); an exit with no entry after it counts but has no time. Percentiles are
// nearest-rank over all times of the group. Guest functions come from the resolver service like
// the printer's (guest_functions.hpp); unresolved addresses are counted as "[unresolved]".
//
// Several inputs are shards: an exit waits for its entry within its own input, while the counts and
// times add up across inputs (reasons by ISA and code, vCPUs by host thread). The state is exact
// (every time is kept), so merged partial results give what one run over all the inputs gives.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include <ringscope/analysis.hpp>
#include <ringscope/error.hpp>
#include <ringscope/handler.hpp>
#include <ringscope/input_index.hpp>

#include "exit_fields.hpp"
#include "exit_reasons.hpp"
#include "guest_functions.hpp"
#include "kvm_fields.hpp"

namespace ringscope::kvm {

inline constexpr int64_t kMaxTopFunctions = 1000000;

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
    void on_event(const Event& ev) override { on_input_event(input_index_.of(ev), ev); }
    // An event of input number `input` (the file it comes from).
    void on_input_event(size_t input, const Event& ev);
    // Tables "kvm.exits.reasons", "kvm.exits.vcpus", "kvm.exits.vcpu_reasons", "kvm.exits.functions".
    void end(ResultSink& sink) override;

    uint64_t exits() const noexcept { return total_exits_; }
    size_t top_functions() const noexcept { return opts_.top_functions; }

    void merge(const KvmExitsAnalysis& other);
    nlohmann::json save_state() const;
    Status load_state(const nlohmann::json& state);

  private:
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
        int64_t vcpu = -1;  // the vcpu_id seen last (the larger on a tie)
        uint64_t vcpu_ts = 0;
        Durations d;
        std::unordered_map<size_t, Durations> by_reason;
    };
    // The exit of a host thread of one input waiting for its entry.
    struct Pending {
        uint64_t ts = 0;
        size_t reason = 0;
    };

    void reset();
    size_t reason_index(const ExitFields& ti, uint64_t isa, uint64_t value);
    size_t add_reason(std::string name, uint64_t isa, uint64_t value);
    void set_vcpu(Vcpu& v, int64_t vcpu, uint64_t ts);
    std::string_view own(std::string_view name);
    static void add_stats(std::vector<Cell>& row, Durations& d);

    KvmExitsOptions opts_;
    InputIndex input_index_;  // the inputs of on_event() (a run over several files)
    ExitFieldsCache types_;
    std::unordered_map<uint64_t, size_t> reason_by_key_;  // isa << 32 | value
    std::vector<Reason> reasons_;
    std::unordered_map<int, Vcpu> vcpus_;
    std::unordered_map<uint64_t, Pending> pending_;  // by input << 32 | pid
    std::set<std::string, std::less<>> names_;       // function names of merged states
    GuestFunctions guest_;
    TextBuffer scratch_;
    uint64_t total_exits_ = 0;
};

// kvm.exits (top: guest functions per reason) for `ringscope run`, which feeds it from its one pass
// over the inputs; `ringscope kvm exits` runs the same class.
AnalysisSpec exits_analysis_spec();

}  // namespace ringscope::kvm
