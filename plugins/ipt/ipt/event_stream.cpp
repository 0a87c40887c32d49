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
#include "ipt/last_ip.hpp"
#include "ipt/packet_decoder.hpp"
#include "ipt/psb_search.hpp"
#include "ipt/timing.hpp"
#include "ipt/trace_file.hpp"

namespace ringscope::ipt {
namespace {

enum TypeIndex : uint32_t {
    t_psb,
    t_tnt,
    t_tip,
    t_tip_pge,
    t_tip_pgd,
    t_fup,
    t_mode,
    t_pip,
    t_vmcs,
    t_tsc,
    t_mtc,
    t_cyc,
    t_cbr,
    t_ovf,
    t_ptw,
    t_pwre,
    t_pwrx,
    t_mwait,
    t_exstop,
    t_stop,
    t_count,
};

struct FieldSpec {
    const char* name;
    const char* type;
    uint32_t offset, size, flags;
};

FieldInfo make_field(const FieldSpec& s) {
    FieldInfo f;
    f.name = s.name;
    f.type = s.type;
    f.offset = s.offset;
    f.size = s.size;
    f.elem_size = (s.flags & kFieldDynamic) ? 1 : s.size;
    f.flags = s.flags;
    return f;
}

constexpr FieldSpec kOffset{"offset", "u64", 0, 8, 0};

std::vector<std::unique_ptr<EventType>> make_types() {
    struct Def {
        const char* name;
        std::vector<FieldSpec> fields;
        const char* fmt;
    };
    const FieldSpec ip[] = {{"ip", "u64", 8, 8, 0},
                            {"ipc", "u8", 16, 1, 0},
                            {"suppressed", "u8", 17, 1, 0},
                            {"symbol", "__data_loc char[]", 20, 4, kFieldDynamic | kFieldString}};
    std::vector<Def> defs = {
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
    std::vector<std::unique_ptr<EventType>> types;
    uint32_t id = 1;
    for (auto& d : defs) {
        auto t = std::make_unique<EventType>();
        t->id = id++;
        t->system = "ipt";
        t->name = d.name;
        t->fields.push_back(make_field(kOffset));
        for (auto& f : d.fields) t->fields.push_back(make_field(f));
        t->print_fmt = d.fmt;
        t->finalize();
        types.push_back(std::move(t));
    }
    return types;
}

class IptContext : public TraceContext {
  public:
    IptContext(std::string source, const ResolverService& resolvers)
        : source_(std::move(source)), resolvers_(resolvers), types_(make_types()) {}

    std::string_view comm(int) const override { return "<...>"; }
    void register_comm(int, std::string_view) override {}
    const EventType* type_by_id(uint32_t id) const override {
        return id >= 1 && id <= types_.size() ? types_[id - 1].get() : nullptr;
    }
    const EventType* find_type(std::string_view system, std::string_view name) const override {
        if (system != "ipt") return nullptr;
        for (const auto& t : types_)
            if (t->name == name) return t.get();
        return nullptr;
    }
    const ResolverService& resolvers() const override { return resolvers_; }
    std::string_view source_name() const override { return source_; }
    int cpu_count() const override { return 1; }
    int long_size() const override { return 8; }
    bool big_endian() const override { return false; }

    const EventType* type(TypeIndex i) const { return types_[i].get(); }
    std::vector<const EventType*> all() const {
        std::vector<const EventType*> out;
        for (const auto& t : types_) out.push_back(t.get());
        return out;
    }

  private:
    std::string source_;
    const ResolverService& resolvers_;
    std::vector<std::unique_ptr<EventType>> types_;
};

class IptStream : public EventStream {
  public:
    IptStream(TraceBytes owned, std::span<const uint8_t> bytes, std::string path,
              const ResolverService& resolvers)
        : owned_(std::move(owned)), ctx_(std::move(path), resolvers) {
        config_.begin = bytes.data();
        config_.end = bytes.data() + bytes.size();
        decoder_ = std::make_unique<PacketDecoder>(config_);
        payload_.reserve(256);
    }

    const TraceContext& context() const override { return ctx_; }
    std::vector<const EventType*> types() const override { return ctx_.all(); }
    Status status() const override { return status_; }
    bool next(Event& out) override;

  private:
    bool resync();
    template <class T>
    void put(uint32_t off, T v) {
        std::memcpy(payload_.data() + off, &v, sizeof v);
    }
    void begin_payload(size_t size, uint64_t offset) {
        payload_.assign(size, 0);
        put<uint64_t>(0, offset);
    }
    void put_ip(uint64_t offset, const PacketIp& ip);

    TraceBytes owned_;
    IptContext ctx_;
    Config config_;
    std::unique_ptr<PacketDecoder> decoder_;
    LastIp last_ip_;
    TimeState time_;
    std::vector<uint8_t> payload_;
    Status status_;
    bool synced_ = false;
    bool done_ = false;
    int64_t missed_ = 0;
};

bool IptStream::resync() {
    int err = decoder_->sync_forward();
    if (err < 0) {
        if (err != -pte_eos) {
            status_ = Error(Errc::corrupt, std::string("cannot synchronize: ") + pt_error_string(err))
                          .in_file(std::string(ctx_.source_name()));
        }
        done_ = true;
        return false;
    }
    // Packets before this PSB were skipped: their state is gone.
    last_ip_.init();
    time_.init();
    return true;
}

void IptStream::put_ip(uint64_t offset, const PacketIp& ip) {
    begin_payload(20 + 4, offset);
    last_ip_.update(ip);
    uint64_t full = 0;
    bool suppressed = last_ip_.query(&full) < 0;
    put<uint64_t>(8, full);
    put<uint8_t>(16, ip.ipc);
    put<uint8_t>(17, suppressed ? 1 : 0);
    std::string_view name;
    std::string text;
    if (!suppressed) {
        if (auto sym = ctx_.resolvers().lookup(kKernelDomain, full)) {
            text = ResolverService::format(*sym, full);
            name = text;
        }
    }
    auto at = static_cast<uint32_t>(payload_.size());
    payload_.insert(payload_.end(), name.begin(), name.end());
    payload_.push_back(0);
    put<uint32_t>(20, (static_cast<uint32_t>(name.size() + 1) << 16) | at);
}

bool IptStream::next(Event& out) {
    if (done_) return false;
    if (!synced_) {
        synced_ = true;
        if (!resync()) return false;
    }
    for (;;) {
        uint64_t offset = 0;
        decoder_->get_offset(offset);
        Packet pk;
        int size = decoder_->next(pk);
        if (size < 0) {
            if (size == -pte_eos) {
                done_ = true;
                return false;
            }
            // A bad packet: skip to the next PSB; what lies between is lost.
            missed_ = -1;
            if (!resync()) return false;
            continue;
        }
        const auto& p = pk.payload;
        TypeIndex type;
        switch (pk.type) {
            case PacketType::psb:
                type = t_psb;
                begin_payload(8, offset);
                break;
            case PacketType::tnt_8:
            case PacketType::tnt_64:
                type = t_tnt;
                begin_payload(17, offset);
                put<uint64_t>(8, p.tnt.payload);
                put<uint8_t>(16, p.tnt.bit_size);
                break;
            case PacketType::tip:
            case PacketType::tip_pge:
            case PacketType::tip_pgd:
            case PacketType::fup:
                type = pk.type == PacketType::tip       ? t_tip
                       : pk.type == PacketType::tip_pge ? t_tip_pge
                       : pk.type == PacketType::tip_pgd ? t_tip_pgd
                                                        : t_fup;
                put_ip(offset, p.ip);
                break;
            case PacketType::mode:
                type = t_mode;
                begin_payload(15, offset);
                put<uint8_t>(8, p.mode.leaf == ModeLeaf::exec ? 0 : 1);
                put<uint8_t>(9, p.mode.csl);
                put<uint8_t>(10, p.mode.csd);
                put<uint8_t>(11, p.mode.iflag);
                put<uint8_t>(12, p.mode.intx);
                put<uint8_t>(13, p.mode.abrt);
                put<uint8_t>(14, p.mode.leaf == ModeLeaf::exec ? exec_mode_of(p.mode) : 0);
                break;
            case PacketType::pip:
                type = t_pip;
                begin_payload(17, offset);
                put<uint64_t>(8, p.pip.cr3);
                put<uint8_t>(16, p.pip.nr);
                break;
            case PacketType::vmcs:
                type = t_vmcs;
                begin_payload(16, offset);
                put<uint64_t>(8, p.vmcs_base);
                break;
            case PacketType::tsc:
                type = t_tsc;
                time_.update_tsc(p.tsc);
                begin_payload(16, offset);
                put<uint64_t>(8, p.tsc);
                break;
            case PacketType::tma:
                time_.update_tma(p.tma, config_);
                continue;
            case PacketType::mtc:
                type = t_mtc;
                time_.update_mtc(p.mtc, config_);
                begin_payload(9, offset);
                put<uint8_t>(8, p.mtc);
                break;
            case PacketType::cyc:
                type = t_cyc;
                begin_payload(16, offset);
                put<uint64_t>(8, p.cyc);
                break;
            case PacketType::cbr:
                type = t_cbr;
                time_.update_cbr(p.cbr);
                begin_payload(9, offset);
                put<uint8_t>(8, p.cbr);
                break;
            case PacketType::ovf:
                type = t_ovf;
                last_ip_.init();
                begin_payload(8, offset);
                break;
            case PacketType::ptw:
                type = t_ptw;
                begin_payload(18, offset);
                put<uint64_t>(8, p.ptw.payload);
                put<uint8_t>(16, static_cast<uint8_t>(p.ptw.plc == 0 ? 4 : 8));
                put<uint8_t>(17, p.ptw.ip);
                break;
            case PacketType::pwre:
                type = t_pwre;
                begin_payload(11, offset);
                put<uint8_t>(8, p.pwre.state);
                put<uint8_t>(9, p.pwre.sub_state);
                put<uint8_t>(10, p.pwre.hw);
                break;
            case PacketType::pwrx:
                type = t_pwrx;
                begin_payload(13, offset);
                put<uint8_t>(8, p.pwrx.last);
                put<uint8_t>(9, p.pwrx.deepest);
                put<uint8_t>(10, p.pwrx.interrupt);
                put<uint8_t>(11, p.pwrx.store);
                put<uint8_t>(12, p.pwrx.autonomous);
                break;
            case PacketType::mwait:
                type = t_mwait;
                begin_payload(16, offset);
                put<uint32_t>(8, p.mwait.hints);
                put<uint32_t>(12, p.mwait.ext);
                break;
            case PacketType::exstop:
                type = t_exstop;
                begin_payload(9, offset);
                put<uint8_t>(8, p.exstop_ip);
                break;
            case PacketType::stop:
                type = t_stop;
                begin_payload(8, offset);
                break;
            default:
                // PAD, PSBEND, MNT, CFE, EVD, TRIG and the like carry nothing the events show.
                continue;
        }
        uint64_t ts = 0;
        time_.query_tsc(&ts, nullptr, nullptr);
        out = Event(ctx_.type(type), &ctx_, std::span<const uint8_t>(payload_.data(), payload_.size()), ts, 0,
                    missed_);
        missed_ = 0;
        return true;
    }
}

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

Expected<std::unique_ptr<EventStream>> IptDecoder::open(const InputSource& in, ResolverService& resolvers) {
    if (!in.mapped.empty()) {
        std::unique_ptr<EventStream> s =
            std::make_unique<IptStream>(TraceBytes{}, in.mapped, in.path, resolvers);
        return s;
    }
    if (in.fd < 0 && !in.path.empty() && in.path != "-") {
        auto bytes = TraceBytes::load(in.path);
        if (!bytes) return std::move(bytes).error();
        std::span<const uint8_t> view(bytes->begin(), bytes->size());
        std::unique_ptr<EventStream> s =
            std::make_unique<IptStream>(std::move(*bytes), view, in.path, resolvers);
        return s;
    }
    // Not mapped (a pipe): read it all; the PSB search needs the whole buffer.
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
    TraceBytes owned = TraceBytes::copy(data.data(), data.size());
    std::span<const uint8_t> view(owned.begin(), owned.size());
    std::unique_ptr<EventStream> s = std::make_unique<IptStream>(std::move(owned), view, in.path, resolvers);
    return s;
}

}  // namespace ringscope::ipt
