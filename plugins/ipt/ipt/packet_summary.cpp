#include "ipt/packet_summary.hpp"

#include <algorithm>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include <ringscope/output_check.hpp>
#include <ringscope/partial_result.hpp>

#include "ipt/errors.hpp"
#include "ipt/packet_decoder.hpp"
#include "ipt/psb_parts.hpp"
#include "ipt/psb_windows.hpp"

namespace ringscope::ipt {
namespace {

using json = nlohmann::json;

// ptdump's spelling of each PacketType.
constexpr std::array<const char*, PacketSummary::kTypes> kTypeNames = {
    "invalid", "unknown", "pad",    "psb",   "psbend", "fup",  "tip", "tip.pge", "tip.pgd", "tnt.8",
    "tnt.64",  "mode",    "pip",    "vmcs",  "cbr",    "tsc",  "tma", "mtc",     "cyc",     "stop",
    "ovf",     "mnt",     "exstop", "mwait", "pwre",   "pwrx", "ptw", "cfe",     "evd",     "trig"};

constexpr const char* kUsage =
    "usage: ringscope ipt summary [--format text|json|csv] [--partial OUT.json] [-j N] FILE.pt...\n"
    "       ringscope ipt summary --merge [--format F] [--partial OUT.json] PARTIAL.json...\n"
    "  packets per kind (count, bytes), TNT branches, PSBs, decode errors and bytes outside any packet,\n"
    "  summed over the files; --partial writes the mergeable state, --merge combines partials;\n"
    "  -j N decodes PSB segments on N threads (the same sums)\n";

// Input bytes per part with -j.
constexpr uint64_t kPartBytes = 4 << 20;
// What a file is read in: a window of kWindowBytes or more, split in parts of kMinPartBytes or
// more for -j.
constexpr uint64_t kWindowBytes = 512 << 10;
constexpr uint64_t kMinPartBytes = 64 << 10;

double percent(uint64_t part, uint64_t whole) {
    return whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

}  // namespace

void PacketSummary::add_stream(const Config& config, unsigned threads, uint64_t part_bytes) {
    ++streams_;
    const uint64_t size = static_cast<uint64_t>(config.end - config.begin);
    bytes_ += size;
    if (threads <= 1) {
        PacketDecoder decoder(config);
        if (decoder.sync_forward() < 0) {
            unsynced_bytes_ += size;
            return;
        }
        uint64_t sync = 0;
        decoder.get_sync_offset(sync);
        unsynced_bytes_ += sync;
        add_until(decoder, size, size);
        return;
    }
    uint64_t covered = 0;  // bytes from the first PSB on, counted by the parts
    decode_psb_parts<PacketSummary>(
        config, threads, part_bytes ? part_bytes : kPartBytes,
        [](PacketSummary& part, PacketDecoder& decoder, uint64_t stop) {
            return part.add_part(decoder, stop);
        },
        [&](PacketSummary& part) { take_part(part, covered); });
    unsynced_bytes_ += size - covered;
}

Status PacketSummary::add_file(const std::string& path, unsigned threads, uint64_t window_bytes,
                               size_t* window_peak) {
    if (threads < 1) threads = 1;
    // Two parts a thread in each window, so that the threads have work until its end.
    if (window_bytes == 0) window_bytes = std::max<uint64_t>(kWindowBytes, 2 * threads * kMinPartBytes);
    auto in = StreamWindow::open(path, window_bytes);
    if (!in) return std::move(in).error();
    Config config;
    uint64_t covered = 0;
    auto count = decode_psb_windows<PacketSummary>(
        *in, config, threads, threads > 1 ? window_bytes / (2 * threads) : window_bytes,
        [](PacketSummary& part, PacketDecoder& decoder, uint64_t stop) {
            return part.add_part(decoder, stop);
        },
        [&](PacketSummary& part) { take_part(part, covered); });
    if (window_peak) *window_peak = in->peak_bytes();
    if (!count) return std::move(count).error();
    ++streams_;
    bytes_ += count->size;
    unsynced_bytes_ += count->size - covered;
    return Status::success();
}

uint64_t PacketSummary::add_part(PacketDecoder& decoder, uint64_t stop) {
    const Config& c = decoder.config();
    uint64_t from = 0;
    decoder.get_offset(from);
    uint64_t reached = add_until(decoder, stop, static_cast<uint64_t>(c.end - c.begin));
    bytes_ = reached - from;
    return reached;
}

void PacketSummary::take_part(PacketSummary& part, uint64_t& covered) {
    covered += part.bytes_;
    part.bytes_ = 0;
    merge(part);
}

uint64_t PacketSummary::add_until(PacketDecoder& decoder, uint64_t stop, uint64_t size) {
    auto count = [&](uint64_t, const Packet& p) {
        Kind& k = kinds_[static_cast<size_t>(p.type) < kTypes ? static_cast<size_t>(p.type) : 0];
        ++k.count;
        k.bytes += p.size;
        if (p.type == PacketType::tnt_8 || p.type == PacketType::tnt_64) branches_ += p.payload.tnt.bit_size;
    };
    const uint8_t* limit = decoder.config().begin + stop;
    for (;;) {
        uint64_t at = size;  // where decoding stopped
        int err = decoder.for_each(count, limit);
        if (decoder.get_offset(at) < 0) at = size;
        if (err == 0) return at;
        if (err == -pte_eos) {
            unsynced_bytes_ += size - at;  // a packet cut by the end of the stream
            return size;
        }
        ++errors_;
        uint64_t sync = size;  // where decoding starts again
        if (decoder.sync_forward() < 0 || decoder.get_sync_offset(sync) < 0) {
            unsynced_bytes_ += size - at;
            return size;
        }
        unsynced_bytes_ += sync - at;
        if (sync >= stop) return sync;
    }
}

void PacketSummary::merge(const PacketSummary& other) {
    for (size_t i = 0; i < kTypes; ++i) {
        kinds_[i].count += other.kinds_[i].count;
        kinds_[i].bytes += other.kinds_[i].bytes;
    }
    streams_ += other.streams_;
    bytes_ += other.bytes_;
    branches_ += other.branches_;
    errors_ += other.errors_;
    unsynced_bytes_ += other.unsynced_bytes_;
}

void PacketSummary::end(ResultSink& sink) const {
    uint64_t packets = 0;
    for (const Kind& k : kinds_) packets += k.count;
    sink.add_table(
        {"ipt.summary.totals",
         {"streams", "bytes", "packets", "psbs", "tnt_branches", "decode_errors", "unsynced_bytes"},
         {{streams_, bytes_, packets, this->packets(PacketType::psb), branches_, errors_, unsynced_bytes_}}});
    std::vector<size_t> order;
    for (size_t i = 0; i < kTypes; ++i)
        if (kinds_[i].count) order.push_back(i);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return kinds_[a].count > kinds_[b].count; });
    ResultTable t{"ipt.summary.packets", {"packet", "count", "bytes", "share_pct"}, {}};
    for (size_t i : order)
        t.rows.push_back({std::string(kTypeNames[i]), kinds_[i].count, kinds_[i].bytes,
                          percent(kinds_[i].count, packets)});
    sink.add_table(std::move(t));
}

json PacketSummary::save_state() const {
    json kinds = json::object();
    for (size_t i = 0; i < kTypes; ++i)
        if (kinds_[i].count) kinds[kTypeNames[i]] = {kinds_[i].count, kinds_[i].bytes};
    return {{"streams", streams_},
            {"bytes", bytes_},
            {"tnt_branches", branches_},
            {"decode_errors", errors_},
            {"unsynced_bytes", unsynced_bytes_},
            {"packets", std::move(kinds)}};
}

Status PacketSummary::load_state(const json& state) {
    try {
        *this = PacketSummary();
        streams_ = state.at("streams").get<uint64_t>();
        bytes_ = state.at("bytes").get<uint64_t>();
        branches_ = state.at("tnt_branches").get<uint64_t>();
        errors_ = state.at("decode_errors").get<uint64_t>();
        unsynced_bytes_ = state.at("unsynced_bytes").get<uint64_t>();
        for (const auto& item : state.at("packets").items()) {
            // Not a structured binding: clang 14 (the fuzz build) cannot capture one in the lambda.
            const std::string& name = item.key();
            const auto& v = item.value();
            auto it =
                std::find_if(kTypeNames.begin(), kTypeNames.end(), [&](const char* n) { return name == n; });
            if (it == kTypeNames.end()) throw std::invalid_argument("unknown packet kind '" + name + "'");
            Kind& k = kinds_[static_cast<size_t>(it - kTypeNames.begin())];
            k.count = v.at(0).get<uint64_t>();
            k.bytes = v.at(1).get<uint64_t>();
        }
    } catch (const std::exception& e) {
        return Error(Errc::corrupt, std::string("bad analysis state: ") + e.what());
    }
    return Status::success();
}

namespace {

// --merge: the partial results in files into summary, their inputs into inputs; -1, else the
// exit code after reporting an error.
int merge_partials(const std::vector<std::string>& files, PacketSummary& summary,
                   std::vector<std::string>& inputs, std::FILE* err) {
    auto parts = read_partials(files);
    if (!parts) {
        std::fprintf(err, "ringscope ipt summary: %s\n", parts.error().to_string().c_str());
        return parts.error().code() == Errc::io ? 1 : 2;
    }
    // read_partials checked that all name the analysis of the first.
    if (parts->front().analysis != "ipt.summary") {
        std::fprintf(err, "ringscope ipt summary: %s: a partial result of '%s', not of 'ipt.summary'\n",
                     files.front().c_str(), parts->front().analysis.c_str());
        return 2;
    }
    for (size_t i = 0; i < parts->size(); ++i) {
        const PartialResult& p = (*parts)[i];
        PacketSummary part;
        if (Status s = part.load_state(json::parse(p.state_json)); !s) {
            std::fprintf(err, "ringscope ipt summary: %s\n",
                         Error(s.error()).in_file(files[i]).to_string().c_str());
            return 2;
        }
        summary.merge(part);
        inputs.insert(inputs.end(), p.inputs.begin(), p.inputs.end());
    }
    return -1;
}

}  // namespace

int summary_main(const std::vector<std::string>& args, std::FILE* out, std::FILE* err) {
    TableFormat format = TableFormat::text;
    std::string partial;
    bool merge = false;
    unsigned threads = 1;
    std::vector<std::string> files;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "-h" || a == "--help") {
            std::fputs(kUsage, out);
            return 0;
        }
        if ((a == "-j" || a == "--jobs") && i + 1 < args.size()) {
            const std::string& v = args[++i];
            char* rest = nullptr;
            unsigned long n = std::strtoul(v.c_str(), &rest, 10);
            if (v.empty() || *rest || n < 1 || n > 1024) {
                std::fprintf(err, "ringscope ipt summary: -j must be a number from 1 to 1024, not '%s'\n",
                             v.c_str());
                return 2;
            }
            threads = static_cast<unsigned>(n);
        } else if ((a == "--format" || a == "--partial") && i + 1 < args.size()) {
            const std::string& v = args[++i];
            if (a == "--partial") {
                partial = v;
            } else if (!parse_table_format(v, format)) {
                std::fprintf(err, "ringscope ipt summary: --format must be text, json or csv, not '%s'\n",
                             v.c_str());
                return 2;
            }
        } else if (a == "--merge") {
            merge = true;
        } else if (!a.empty() && a[0] == '-') {
            std::fprintf(err, "ringscope ipt summary: unknown or incomplete option '%s'\n%s", a.c_str(),
                         kUsage);
            return 2;
        } else {
            files.push_back(a);
        }
    }
    if (files.empty()) {
        std::fputs(kUsage, err);
        return 2;
    }
    if (Status s = check_outputs({partial}, files); !s) {
        std::fprintf(err, "ringscope ipt summary: %s\n", s.error().to_string().c_str());
        return 2;
    }
    PacketSummary summary;
    std::vector<std::string> inputs;
    if (merge) {
        if (int status = merge_partials(files, summary, inputs, err); status >= 0) return status;
    } else {
        for (const auto& f : files) {
            if (Status s = summary.add_file(f, threads); !s) {
                std::fprintf(err, "ringscope ipt summary: %s: %s\n", f.c_str(), s.error().message().c_str());
                return 1;
            }
        }
        inputs = files;
    }
    if (!partial.empty()) {
        PartialResult p{
            "ipt.summary", {"ipt", "summary"}, {}, std::move(inputs), summary.save_state().dump()};
        if (Status s = write_partial(partial, p); !s) {
            std::fprintf(err, "ringscope ipt summary: %s\n", s.error().to_string().c_str());
            return 1;
        }
        return 0;
    }
    TableCollector tables;
    summary.end(tables);
    write_tables(out, tables.tables, format);
    return 0;
}

}  // namespace ringscope::ipt
