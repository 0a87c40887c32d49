#include "ipt/flow_events.hpp"

#include <cstring>
#include <deque>
#include <string_view>
#include <vector>

#include "ipt/call_stack.hpp"
#include "ipt/errors.hpp"
#include "ipt/event_context.hpp"
#include "ipt/flow_options.hpp"
#include "ipt/flow_walk.hpp"
#include "ipt/image.hpp"
#include "ipt/insn_decoder.hpp"
#include "ipt/run_symbols.hpp"
#include "ipt/symbols.hpp"

namespace ringscope::ipt {
namespace {

enum FlowType : uint32_t { f_call, f_return, f_branch, f_error };

std::vector<std::unique_ptr<EventType>> flow_types() {
    constexpr uint32_t kString = kFieldDynamic | kFieldString;
    const std::vector<FieldSpec> branch = {{"ip", "u64", 8, 8, 0},
                                           {"target", "u64", 16, 8, 0},
                                           {"depth", "u32", 24, 4, 0},
                                           {"symbol", "__data_loc char[]", 28, 4, kString}};
    std::vector<FieldSpec> with_kind = branch;
    with_kind.push_back({"kind", "__data_loc char[]", 32, 4, kString});
    const char* fmt = "\"0x%llx => 0x%llx %s depth=%u\", REC->ip, REC->target, __get_str(symbol), REC->depth";
    return make_event_types({
        {"call", branch, fmt},
        {"return", branch, fmt},
        {"branch", with_kind,
         "\"%s 0x%llx => 0x%llx %s depth=%u\", __get_str(kind), REC->ip, REC->target, __get_str(symbol), "
         "REC->depth"},
        {"error",
         {{"error", "__data_loc char[]", 8, 4, kString}},
         "\"offset=0x%llx %s\", REC->offset, __get_str(error)"},
    });
}

// An event waiting to be read: its type, time and payload.
struct Pending {
    FlowType type = f_call;
    uint64_t ts = 0;
    std::vector<uint8_t> bytes;

    template <class T>
    void put(size_t at, T v) {
        std::memcpy(bytes.data() + at, &v, sizeof v);
    }
    // A string after the fixed fields, its __data_loc at loc.
    void put_string(size_t loc, std::string_view s) {
        const auto at = static_cast<uint32_t>(bytes.size());
        bytes.insert(bytes.end(), s.begin(), s.end());
        bytes.push_back(0);
        put<uint32_t>(loc, (static_cast<uint32_t>(s.size() + 1) << 16) | at);
    }
};

const char* jump_kind(InsnClass c) {
    switch (c) {
        case InsnClass::jump:
            return "jmp";
        case InsnClass::cond_jump:
            return "jcc";
        case InsnClass::far_jump:
            return "far jmp";
        default:
            return nullptr;
    }
}

class FlowStream : public EventStream {
  public:
    FlowStream(TraceBytes owned, std::span<const uint8_t> bytes, std::string path,
               const ResolverService& resolvers, std::unique_ptr<Image> image,
               std::unique_ptr<Symbols> symbols, bool branches)
        : owned_(std::move(owned)),
          ctx_(path, resolvers, flow_types()),
          image_(std::move(image)),
          symbols_(std::move(symbols)),
          decoder_(config_of(bytes), *image_),
          branches_(branches) {}

    const TraceContext& context() const override { return ctx_; }
    std::vector<const EventType*> types() const override { return ctx_.all(); }
    // The file shrank under the walk (it ended there).
    Status status() const override {
        if (pages_.failed()) return pages_.error();
        return Status::success();
    }
    bool next(Event& out) override {
        while (queue_.empty() && !done_) step();
        if (queue_.empty()) return false;
        // The payload read before goes back to the spares (an allocation an event saved).
        std::swap(current_, queue_.front());
        spare_.push_back(std::move(queue_.front().bytes));
        queue_.pop_front();
        out = Event(ctx_.type(current_.type), &ctx_, std::span<const uint8_t>(current_.bytes), current_.ts, 0,
                    0);
        return true;
    }

  private:
    static Config config_of(std::span<const uint8_t> bytes) {
        Config config;
        config.begin = bytes.data();
        config.end = bytes.data() + bytes.size();
        return config;
    }

    // `ipt calls`' walk a step at a time: a sync, one run of instructions, an error or the end.
    void step() {
        InsnPath path;
        switch (walk_.next(path, true)) {
            case FlowWalk::Step::end:
                done_ = true;
                return;
            case FlowWalk::Step::synced:
                stack_.clear();
                jumped_ = false;
                tsc_ = 0;
                decoder_.time(tsc_);
                return;
            case FlowWalk::Step::error: {
                Pending& e = add(f_error, 12);
                e.put_string(8, pt_error_string(walk_.status()));
                return;
            }
            case FlowWalk::Step::run:
                // After an interrupt, a disable, an overflow...: what follows is no branch's target.
                if (walk_.interrupted()) jumped_ = false;
                if (path.single.ninsn) take(path.single);
                decoder_.time(tsc_);
                return;
        }
    }

    Pending& add(FlowType type, size_t fixed) {
        Pending& e = queue_.emplace_back();
        if (!spare_.empty()) {
            e.bytes = std::move(spare_.back());
            spare_.pop_back();
        }
        e.type = type;
        e.ts = tsc_;
        e.bytes.assign(fixed, 0);
        uint64_t offset = 0;
        decoder_.get_offset(offset);
        e.put<uint64_t>(0, offset);
        return e;
    }

    void add_branch(FlowType type, uint64_t target, int symbol, const char* kind = nullptr) {
        Pending& e = add(type, kind ? 36 : 32);
        e.put<uint64_t>(8, from_);
        e.put<uint64_t>(16, target);
        e.put<uint32_t>(24, static_cast<uint32_t>(stack_.depth()));
        e.put_string(28, symbols_->name(symbol));
        if (kind) e.put_string(32, kind);
    }

    // A run of instructions: the branch that led to it, then the function it ends in on top of
    // the stack (`ipt calls`' call tree, its symbols only).
    void take(const InsnRun& run) {
        // A frame is its function's symbol.
        const auto symbol = [](int, int s) { return s; };
        const RunSymbol at = run_symbols_.of(decoder_.block_cache(), run);
        switch (stack_.start(at.first, symbol)) {
            case CallStack::Edge::call:
                add_branch(f_call, run.ip, at.first);
                break;
            case CallStack::Edge::ret:
                add_branch(f_return, run.ip, stack_.top().symbol);
                stack_.pop();
                break;
            case CallStack::Edge::none:
                if (const char* kind = jump_kind(stack_.pending());
                    kind && branches_ && jumped_ && run.ip != fall_through_)
                    add_branch(f_branch, run.ip, at.first, kind);
                break;
        }
        stack_.ended(run.end_class);
        from_ = run.end_ip;
        fall_through_ = run.end_ip + run.sizes[run.ninsn - 1];
        jumped_ = true;
        stack_.place(at.last, symbol);
    }

    TraceBytes owned_;
    IptContext ctx_;
    std::unique_ptr<Image> image_;
    std::unique_ptr<Symbols> symbols_;
    InsnDecoder decoder_;
    FlowWalk walk_{decoder_, owned_.mapped() ? &pages_ : nullptr};
    const bool branches_;
    bool done_ = false;
    uint64_t tsc_ = 0;                      // the time at the end of the last run
    CallStack stack_;                       // the functions called (their symbols), innermost last
    RunSymbols run_symbols_{*symbols_};     // the runs' first and last functions
    uint64_t from_ = 0, fall_through_ = 0;  // the last run's last instruction, and the one after it
    bool jumped_ = false;                   // the next run follows the last one's branch
    std::deque<Pending> queue_;
    Pending current_;
    std::vector<std::vector<uint8_t>> spare_;  // payloads read, their memory for the next ones
    // When owned_ is mapped: its pages behind the walk given back (walk_ keeps its address only).
    PagesBehind pages_{owned_};
};

// The comma-separated values of an -O option, each added to the image.
Status add_list(const char* option, const std::string& list, Image& image, Symbols& symbols) {
    for (size_t at = 0; at <= list.size();) {
        size_t comma = list.find(',', at);
        if (comma == std::string::npos) comma = list.size();
        const std::string one = list.substr(at, comma - at);
        at = comma + 1;
        if (one.empty()) continue;
        if (Status s = add_image_arg(std::string("--") + option, one, image, &symbols); !s)
            return Error(s.error().code(), std::string("-O ipt:") + option + ": " + s.error().to_string());
    }
    return Status::success();
}

}  // namespace

Expected<std::unique_ptr<EventStream>> open_flow_events(TraceBytes owned, std::span<const uint8_t> bytes,
                                                        std::string path, const ResolverService& resolvers,
                                                        const FlowEventOptions& o) {
    if (!o.flow.empty() && o.flow != "calls" && o.flow != "branches" && o.flow != "packets")
        return Error(Errc::invalid_argument, "-O ipt:flow=" + o.flow + ": not calls, branches or packets");
    if (!o.has_code())
        return Error(
            Errc::invalid_argument,
            "-O ipt:flow=" + o.flow + " needs the code: -O ipt:elf=FILE[:BASE] or ipt:raw=FILE:ADDR");
    auto image = std::make_unique<Image>();
    auto symbols = std::make_unique<Symbols>();
    if (Status s = add_list("elf", o.elf, *image, *symbols); !s) return s.error();
    if (Status s = add_list("raw", o.raw, *image, *symbols); !s) return s.error();
    if (!o.kallsyms.empty())
        if (Status s = symbols->load_kallsyms(o.kallsyms); !s)
            return Error(s.error().code(), "-O ipt:kallsyms: " + s.error().to_string());
    std::unique_ptr<EventStream> stream =
        std::make_unique<FlowStream>(std::move(owned), bytes, std::move(path), resolvers, std::move(image),
                                     std::move(symbols), o.flow == "branches");
    return stream;
}

}  // namespace ringscope::ipt
