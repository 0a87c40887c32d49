// A third-party plugin: a decoder for the made-up VTR format and a handler for its events.
// It uses only the installed SDK (<ringscope/...>).
#include <unistd.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <ringscope/plugin.hpp>

namespace {

constexpr char kMagic[8] = {'V', 'N', 'D', 'R', 'T', 'R', 'C', '1'};
constexpr size_t kHeaderSize = 12;
constexpr size_t kRecordHeaderSize = 20;

ringscope::FieldInfo field(const char* name, const char* type, uint32_t offset, uint32_t size, uint32_t flags = 0) {
    ringscope::FieldInfo f;
    f.name = name;
    f.type = type;
    f.offset = offset;
    f.size = size;
    f.elem_size = size;
    f.flags = flags;
    return f;
}

// The two event types, laid out like kernel events (common fields first) so that the framework's
// default printer and filters work on them.
std::unique_ptr<ringscope::EventType> make_type(uint32_t id, const char* name) {
    auto t = std::make_unique<ringscope::EventType>();
    t->id = id;
    t->system = "vendor";
    t->name = name;
    t->common_fields = {field("common_type", "unsigned short", 0, 2), field("common_flags", "unsigned char", 2, 1),
                        field("common_preempt_count", "unsigned char", 3, 1),
                        field("common_pid", "int", 4, 4, ringscope::kFieldSigned)};
    if (id == 1) {
        t->fields = {field("value", "u64", 8, 8)};
        t->print_fmt = "\"value=%llu\", REC->value";
    } else {
        t->fields = {field("msg", "__data_loc char[]", 8, 4, ringscope::kFieldDynamic | ringscope::kFieldString)};
        t->print_fmt = "\"%s\", __get_str(msg)";
    }
    t->finalize();
    return t;
}

uint16_t rd16(const uint8_t* p) { uint16_t v; std::memcpy(&v, p, 2); return v; }
uint32_t rd32(const uint8_t* p) { uint32_t v; std::memcpy(&v, p, 4); return v; }
uint64_t rd64(const uint8_t* p) { uint64_t v; std::memcpy(&v, p, 8); return v; }

class VtrStream final : public ringscope::EventStream, public ringscope::TraceContext {
public:
    VtrStream(std::string path, std::vector<uint8_t> bytes, const ringscope::ResolverService& resolvers)
        : path_(std::move(path)), bytes_(std::move(bytes)), resolvers_(resolvers),
          sample_(make_type(1, "sample")), mark_(make_type(2, "mark")) {
        remaining_ = rd32(bytes_.data() + 8);
        pos_ = kHeaderSize;
    }

    const ringscope::TraceContext& context() const override { return *this; }
    std::vector<const ringscope::EventType*> types() const override { return {sample_.get(), mark_.get()}; }
    ringscope::Status status() const override { return status_; }

    bool next(ringscope::Event& out) override {
        if (remaining_ == 0 || !status_) return false;
        if (bytes_.size() - pos_ < kRecordHeaderSize) return fail("record header cut short");
        const uint8_t* r = bytes_.data() + pos_;
        uint64_t ts = rd64(r);
        int cpu = static_cast<int>(rd32(r + 8));
        int32_t pid = static_cast<int32_t>(rd32(r + 12));
        uint16_t kind = rd16(r + 16), len = rd16(r + 18);
        if (bytes_.size() - pos_ - kRecordHeaderSize < len) return fail("record payload cut short");
        const uint8_t* payload = r + kRecordHeaderSize;

        // Lay the record out as the event type says: common fields, then the event's own.
        payload_.assign(8, 0);
        uint16_t id = kind == 0 ? 1 : 2;
        std::memcpy(payload_.data(), &id, 2);
        std::memcpy(payload_.data() + 4, &pid, 4);
        if (kind == 0) {
            if (len != 8) return fail("sample payload is not 8 bytes");
            payload_.insert(payload_.end(), payload, payload + 8);
        } else if (kind == 1) {
            uint32_t loc = (static_cast<uint32_t>(len + 1) << 16) | 12u;
            payload_.resize(12);
            std::memcpy(payload_.data() + 8, &loc, 4);
            payload_.insert(payload_.end(), payload, payload + len);
            payload_.push_back(0);
        } else {
            return fail("unknown record kind " + std::to_string(kind));
        }
        out = ringscope::Event(kind == 0 ? sample_.get() : mark_.get(), this, payload_, ts, cpu);
        pos_ += kRecordHeaderSize + len;
        --remaining_;
        return true;
    }

    // TraceContext
    std::string_view comm(int pid) const override { return pid == 0 ? "<idle>" : "<...>"; }
    void register_comm(int, std::string_view) override {}
    const ringscope::EventType* type_by_id(uint32_t id) const override {
        return id == 1 ? sample_.get() : id == 2 ? mark_.get() : nullptr;
    }
    const ringscope::EventType* find_type(std::string_view system, std::string_view name) const override {
        if (system != "vendor") return nullptr;
        return name == "sample" ? sample_.get() : name == "mark" ? mark_.get() : nullptr;
    }
    const ringscope::ResolverService& resolvers() const override { return resolvers_; }
    std::string_view source_name() const override { return path_; }
    int cpu_count() const override { return 2; }
    int long_size() const override { return 8; }
    bool big_endian() const override { return false; }

private:
    bool fail(const std::string& why) {
        status_ = ringscope::Error(ringscope::Errc::corrupt, why).at_offset(static_cast<int64_t>(pos_)).in_file(path_);
        return false;
    }

    std::string path_;
    std::vector<uint8_t> bytes_;
    const ringscope::ResolverService& resolvers_;
    std::unique_ptr<ringscope::EventType> sample_, mark_;
    std::vector<uint8_t> payload_;
    size_t pos_ = 0;
    uint32_t remaining_ = 0;
    ringscope::Status status_;
};

class VtrDecoder final : public ringscope::Decoder {
public:
    std::string_view format_name() const override { return "vendor-vtr"; }
    std::string_view description() const override { return "VTR traces of the vendor-decoder example"; }
    int probe(std::span<const uint8_t> head) const override {
        return head.size() >= sizeof kMagic && std::memcmp(head.data(), kMagic, sizeof kMagic) == 0 ? 100 : 0;
    }
    ringscope::Expected<std::unique_ptr<ringscope::EventStream>> open(const ringscope::InputSource& in,
                                                                      ringscope::ResolverService& resolvers) override {
        std::vector<uint8_t> bytes(in.mapped.begin(), in.mapped.end());
        if (bytes.empty() && in.fd >= 0) {
            uint8_t buf[65536];
            for (ssize_t n; (n = ::read(in.fd, buf, sizeof buf)) > 0;) bytes.insert(bytes.end(), buf, buf + n);
        }
        if (bytes.size() < kHeaderSize || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
            return ringscope::Error(ringscope::Errc::bad_magic, "not a VTR file").at_offset(0).in_file(in.path);
        return std::unique_ptr<ringscope::EventStream>(new VtrStream(in.path, std::move(bytes), resolvers));
    }
};

// Prints marks as `mark "TEXT"` and counts what it sees.
class VendorCounter final : public ringscope::EventHandler {
public:
    std::string_view name() const override { return "vendor-counter"; }
    std::vector<ringscope::EventMatch> subscriptions() const override { return {{"vendor", ""}}; }
    void on_event(const ringscope::Event& ev) override {
        ++events_;
        if (ev.name() == "sample") sum_ += static_cast<uint64_t>(ev.integer("value").value_or(0));
    }
    bool overrides_print() const override { return true; }
    bool print(const ringscope::Event& ev, ringscope::PrintContext&, ringscope::TextBuffer& out) override {
        if (ev.name() != "mark") return false;
        out.append("mark \"");
        out.append(ev.str("msg").value_or(""));
        out.push_back('"');
        return true;
    }
    void end(ringscope::ResultSink& sink) override {
        sink.add_table({"vendor.summary", {"events", "sample_sum"}, {{events_, sum_}}});
    }

private:
    uint64_t events_ = 0;
    uint64_t sum_ = 0;
};

class VendorPlugin final : public ringscope::Plugin {
public:
    void register_into(ringscope::PluginRegistry& r) override {
        r.add_decoder(std::make_shared<VtrDecoder>());
        r.add_handler([] { return std::make_unique<VendorCounter>(); });
    }
};

}  // namespace

RINGSCOPE_PLUGIN("vendor-decoder", "1.0.0", VendorPlugin)
