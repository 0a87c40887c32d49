// One trace event -> one FtraceEvent message (timestamp, pid, common_flags, then the typed
// message Perfetto defines for it or a GenericFtraceEvent with every field). What to write for an
// event type is worked out once, on its first event.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <ringscope/event.hpp>
#include <ringscope/text_buffer.hpp>

#include "framework/perfetto/proto_writer.hpp"

namespace ringscope::engine {
class PrintDispatch;
class TraceFile;
}  // namespace ringscope::engine

namespace ringscope::perfetto {

class CompactSched;

// Kernel function addresses -> interning ids of their names (InternedData.kernel_symbols), per
// packet sequence. New names wait in `pending` until a packet of the sequence carries them.
struct SymbolInterner {
    std::unordered_map<uint64_t, uint64_t> ids;
    std::vector<std::pair<uint64_t, std::string>> pending;  // (iid, name)
    std::unordered_map<uint64_t, std::string> names;        // addr -> "name+0xoff"
    uint64_t intern(const Event& ev, uint64_t addr);
    // The function at ADDR as report prints it ("name+0xoff", "0xADDR" when no symbol covers it).
    const std::string& name(const Event& ev, uint64_t addr);
};

// The fields a print fmt prints as kernel functions (%ps, %pS, %pf, %pF, %pB of REC->field).
std::vector<std::string> function_fields(std::string_view print_fmt);

class EventEncoder {
  public:
    // FILE (may be null) formats the text of trace_printk events (bprint): their arguments are
    // binary, Perfetto's print event holds the text. It must outlive the encoder's events.
    explicit EventEncoder(engine::TraceFile* file = nullptr);
    ~EventEncoder();
    EventEncoder(const EventEncoder&) = delete;
    EventEncoder& operator=(const EventEncoder&) = delete;

    // Appends the FtraceEvent's fields (without the bundle's key and length) to `out`.
    void encode(const Event& ev, SymbolInterner& symbols, Bytes& out);
    // A sched_switch or sched_waking written typed (the kernel's format fits Perfetto's message)
    // goes into COMPACT instead; returns whether it did.
    bool encode_compact(const Event& ev, CompactSched& compact);

    struct Plan;

  private:
    // The plans of recent types by id, ahead of the map (one look-up per event).
    struct Recent {
        const EventType* type = nullptr;
        const Plan* plan = nullptr;
    };
    static constexpr size_t kRecent = 256;
    const Plan& plan(const EventType& type) {
        const Recent& r = recent_[type.id % kRecent];
        if (r.type == &type) [[likely]]
            return *r.plan;
        return make_plan(type);
    }
    const Plan& make_plan(const EventType& type);
    std::unordered_map<const EventType*, std::unique_ptr<Plan>> plans_;
    Recent recent_[kRecent];
    engine::TraceFile* file_ = nullptr;
    std::unique_ptr<engine::PrintDispatch> printer_;  // made on the first bprint
    TextBuffer text_;
};

}  // namespace ringscope::perfetto
