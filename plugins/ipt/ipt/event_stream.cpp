#include "ipt/event_stream.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include <ringscope/event_type.hpp>
#include <ringscope/resolver.hpp>

#include "ipt/errors.hpp"
#include "ipt/event_builder.hpp"
#include "ipt/event_context.hpp"
#include "ipt/event_sequence.hpp"
#include "ipt/packet_decoder.hpp"
#include "ipt/pages_behind.hpp"
#include "ipt/trace_file.hpp"

namespace ringscope::ipt {
namespace {

std::vector<std::unique_ptr<EventType>> make_types() {
    const FieldSpec ip[] = {{"ip", "u64", 8, 8, 0},
                            {"ipc", "u8", 16, 1, 0},
                            {"suppressed", "u8", 17, 1, 0},
                            {"symbol", "__data_loc char[]", 20, 4, kFieldDynamic | kFieldString}};
    std::vector<EventDef> defs = {
        {"psb", {}, "\"offset=0x%llx\", REC->offset"},
        {"tnt",
         {{"bits", "u64", 8, 8, 0}, {"count", "u8", 16, 1, 0}},
         "\"bits=0x%llx count=%u\", REC->bits, REC->count"},
        {"tip", {ip[0], ip[1], ip[2], ip[3]}, "\"ip=0x%llx\", REC->ip"},
        {"tip_pge", {ip[0], ip[1], ip[2], ip[3]}, "\"ip=0x%llx\", REC->ip"},
        {"tip_pgd", {ip[0], ip[1], ip[2], ip[3]}, "\"ip=0x%llx\", REC->ip"},
        {"fup", {ip[0], ip[1], ip[2], ip[3]}, "\"ip=0x%llx\", REC->ip"},
        {"mode",
         {{"leaf", "u8", 8, 1, 0},
          {"csl", "u8", 9, 1, 0},
          {"csd", "u8", 10, 1, 0},
          {"iflag", "u8", 11, 1, 0},
          {"intx", "u8", 12, 1, 0},
          {"abrt", "u8", 13, 1, 0},
          {"exec_mode", "u8", 14, 1, 0}},
         "\"leaf=%u\", REC->leaf"},
        {"pip", {{"cr3", "u64", 8, 8, 0}, {"nr", "u8", 16, 1, 0}}, "\"cr3=0x%llx nr=%u\", REC->cr3, REC->nr"},
        {"vmcs", {{"base", "u64", 8, 8, 0}}, "\"base=0x%llx\", REC->base"},
        {"tsc", {{"tsc", "u64", 8, 8, 0}}, "\"tsc=0x%llx\", REC->tsc"},
        {"mtc", {{"ctc", "u8", 8, 1, 0}}, "\"ctc=0x%x\", REC->ctc"},
        {"cyc", {{"cycles", "u64", 8, 8, 0}}, "\"cycles=0x%llx\", REC->cycles"},
        {"cbr", {{"ratio", "u8", 8, 1, 0}}, "\"ratio=0x%x\", REC->ratio"},
        {"ovf", {}, "\"offset=0x%llx\", REC->offset"},
        {"ptw",
         {{"payload", "u64", 8, 8, 0}, {"size", "u8", 16, 1, 0}, {"ip", "u8", 17, 1, 0}},
         "\"payload=0x%llx\", REC->payload"},
        {"pwre",
         {{"state", "u8", 8, 1, 0}, {"sub_state", "u8", 9, 1, 0}, {"hw", "u8", 10, 1, 0}},
         "\"state=%u sub_state=%u\", REC->state, REC->sub_state"},
        {"pwrx",
         {{"last", "u8", 8, 1, 0},
          {"deepest", "u8", 9, 1, 0},
          {"interrupt", "u8", 10, 1, 0},
          {"store", "u8", 11, 1, 0},
          {"autonomous", "u8", 12, 1, 0}},
         "\"last=%u deepest=%u\", REC->last, REC->deepest"},
        {"mwait",
         {{"hints", "u32", 8, 4, 0}, {"ext", "u32", 12, 4, 0}},
         "\"hints=0x%x ext=0x%x\", REC->hints, REC->ext"},
        {"exstop", {{"ip", "u8", 8, 1, 0}}, "\"ip=%u\", REC->ip"},
        {"stop", {}, "\"offset=0x%llx\", REC->offset"},
    };
    return make_event_types(defs);
}

// Parts of this size are decoded on threads: a few MB of events each (bounded memory).
constexpr uint64_t kPartBytes = 256 * 1024;

Config stream_config(std::span<const uint8_t> bytes) {
    Config config;
    config.begin = bytes.data();
    config.end = bytes.data() + bytes.size();
    return config;
}

class IptStream : public EventStream {
  public:
    IptStream(TraceBytes owned, std::span<const uint8_t> bytes, std::string path,
              const ResolverService& resolvers, unsigned threads)
        : owned_(std::move(owned)),
          pages_(owned_),
          ctx_(path, resolvers, make_types()),
          config_(stream_config(bytes)),
          builder_(config_, resolvers, std::move(path)),
          events_(config_, builder_, threads, kPartBytes, EventSequence::CallerDecodes::when_ahead,
                  owned_.mapped() ? &pages_ : nullptr) {}

    const TraceContext& context() const override { return ctx_; }
    std::vector<const EventType*> types() const override { return ctx_.all(); }
    Status status() const override { return events_.status(); }
    bool next(Event& out) override {
        EventView e;
        if (!events_.next(e)) return false;
        out = Event(ctx_.type(e.type), &ctx_, e.payload, e.ts, 0, e.missed);
        return true;
    }

  private:
    TraceBytes owned_;
    PagesBehind pages_;  // over owned_ when it is mapped
    IptContext ctx_;
    Config config_;
    EventBuilder builder_;
    EventSequence events_;
};

}  // namespace

int probe_ipt(std::span<const uint8_t> head) noexcept {
    if (head.size() < static_cast<size_t>(kPsbSize)) return 0;
    Config config;
    config.begin = head.data();
    config.end = head.data() + head.size();
    PacketDecoder decoder(config);
    if (decoder.sync_forward() < 0) return 0;
    uint64_t at = 0;
    decoder.get_offset(at);
    // A PSB+ header is PSB, status packets, PSBEND: decoding it proves the packet boundary.
    for (int i = 0; i < 64; ++i) {
        Packet pk;
        int size = decoder.next(pk);
        if (size == -pte_eos) return 40;
        if (size < 0) return 0;
        if (pk.type == PacketType::psbend) return at == 0 ? 100 : 80;
    }
    return 0;
}

int IptDecoder::probe(std::span<const uint8_t> head) const {
    return probe_ipt(head);
}

namespace {

// The bytes of in: a regular file mapped again here (TraceBytes::map: its pages given back behind
// the decoder, a cut file an error, not SIGBUS, which the caller's mapping would be), mapped by
// the caller, read from its path, or read from its fd (a pipe: the PSB search needs the whole
// buffer). owned holds them unless the caller's mapping is used.
Status input_bytes(const InputSource& in, TraceBytes& owned, std::span<const uint8_t>& view) {
    if (!in.mapped.empty()) {
        // The caller mapped a regular file: the same file by its path, unless it is no longer the
        // same size (replaced meanwhile).
        if (auto bytes = TraceBytes::map(in.path);
            bytes && bytes->mapped() && bytes->size() == in.mapped.size()) {
            owned = std::move(*bytes);
            view = std::span<const uint8_t>(owned.begin(), owned.size());
            return Status::success();
        }
        view = in.mapped;
        return Status::success();
    }
    if (in.fd < 0 && !in.path.empty() && in.path != "-") {
        auto bytes = TraceBytes::load(in.path);
        if (!bytes) return std::move(bytes).error();
        owned = std::move(*bytes);
    } else {
        std::vector<uint8_t> data;
        std::vector<uint8_t> chunk(1 << 16);
        for (;;) {
            ssize_t n = ::read(in.fd, chunk.data(), chunk.size());
            if (n < 0) {
                if (errno == EINTR) continue;
                return Error(Errc::io, std::string("read failed: ") + std::strerror(errno)).in_file(in.path);
            }
            if (n == 0) break;
            data.insert(data.end(), chunk.begin(), chunk.begin() + n);
        }
        owned = TraceBytes::copy(data.data(), data.size());
    }
    view = std::span<const uint8_t>(owned.begin(), owned.size());
    return Status::success();
}

}  // namespace

Expected<std::unique_ptr<EventStream>> IptDecoder::open(const InputSource& in, ResolverService& resolvers) {
    const unsigned threads = in.threads > 1 ? static_cast<unsigned>(in.threads) : 1;
    TraceBytes owned;
    std::span<const uint8_t> view;
    if (Status s = input_bytes(in, owned, view); !s) return s.error();
    const FlowEventOptions options = options_ ? options_() : FlowEventOptions{};
    if (options.wanted() || (!options.flow.empty() && options.flow != "packets"))
        return open_flow_events(std::move(owned), view, in.path, resolvers, options);
    std::unique_ptr<EventStream> s =
        std::make_unique<IptStream>(std::move(owned), view, in.path, resolvers, threads);
    return s;
}

}  // namespace ringscope::ipt
