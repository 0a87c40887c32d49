#include "framework/perfetto/trace_writer.hpp"

#include <algorithm>
#include <cstdlib>
#include <initializer_list>
#include <map>
#include <optional>
#include <vector>

#include "framework/engine/trace_file.hpp"
#include "framework/perfetto/event_encoder.hpp"
#include "framework/perfetto/ftrace_schema.hpp"
#include "framework/perfetto/proto_writer.hpp"
#include "framework/sinks/atomic_output.hpp"

namespace ringscope::perfetto {
namespace {

struct Bundle {
    int cpu = 0;
    bool lost = false;  // events were dropped just before the first one
    std::string events;
};

struct Input {
    bool declared = false;
    // What the writer needs of the file, copied when the input is declared (a run may close its
    // files before it finishes the outputs).
    std::optional<std::string> uname;
    uint32_t page_size = 0;
    int cpus = 0;
    std::vector<std::string> cpustats;
    std::vector<std::pair<int, std::string>> tasks;  // saved task names, by pid
    uint32_t sequence = 0;
    uint32_t machine = 0;
    bool started = false;
    bool first_packet = true;
    uint64_t first_ts = 0, last_ts = 0;
    std::vector<Bundle> bundles;  // by stream
    SymbolInterner symbols;
    std::map<int, uint64_t> dropped;  // CPU -> events the trace says were lost (known counts)
};

// trace-cmd's UNAME option: "SYSNAME NODE RELEASE MACHINE", some versions with the kernel's
// version (several words) before the machine.
void put_utsname(std::string& out, std::string_view uname) {
    std::vector<std::string_view> words;
    size_t i = 0;
    while (i < uname.size()) {
        size_t j = uname.find(' ', i);
        if (j == std::string_view::npos) j = uname.size();
        if (j > i) words.push_back(uname.substr(i, j - i));
        i = j + 1;
    }
    if (words.size() < 4) return;
    std::string uts;
    put_bytes(uts, field::kUtsSysname, words[0]);
    if (words.size() > 4) {
        const char* vb = words[3].data();
        const char* ve = words[words.size() - 2].data() + words[words.size() - 2].size();
        put_bytes(uts, field::kUtsVersion, std::string_view(vb, static_cast<size_t>(ve - vb)));
    }
    put_bytes(uts, field::kUtsRelease, words[2]);
    put_bytes(uts, field::kUtsMachine, words.back());
    put_bytes(out, field::kSystemInfoUtsname, uts);
}

// A CPUSTAT option (per_cpu/cpuN/stats): "key: value" lines.
std::map<std::string, std::string> parse_cpustat(std::string_view text) {
    std::map<std::string, std::string> kv;
    size_t i = 0;
    while (i < text.size()) {
        size_t e = text.find('\n', i);
        if (e == std::string_view::npos) e = text.size();
        std::string_view line = text.substr(i, e - i);
        if (size_t c = line.find(':'); c != std::string_view::npos) {
            std::string_view v = line.substr(c + 1);
            while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
            kv[std::string(line.substr(0, c))] = std::string(v);
        }
        i = e + 1;
    }
    return kv;
}

}  // namespace

struct TraceWriter::Impl {
    explicit Impl(std::string path) : out(std::move(path)) {}

    sinks::AtomicOutput out;
    std::FILE* file = nullptr;
    std::string buf, tail, scratch;
    std::vector<Input> inputs;
    EventEncoder encoder;
    uint64_t events = 0, bytes = 0;
    bool write_failed = false;

    void write_out() {
        if (buf.empty()) return;
        if (std::fwrite(buf.data(), 1, buf.size(), file) != buf.size()) write_failed = true;
        bytes += buf.size();
        buf.clear();
    }

    // One TracePacket of IN's sequence: BODY (its fields, in pieces), then the sequence fields
    // and any kernel symbols interned since its last packet.
    void packet(Input& in, std::initializer_list<std::string_view> body, bool needs_state,
                std::optional<uint64_t> ts = std::nullopt) {
        tail.clear();
        if (ts) put_uint(tail, field::kPacketTimestamp, *ts);
        put_uint(tail, field::kPacketSequenceId, in.sequence);
        if (in.first_packet)
            put_uint(tail, field::kPacketSequenceFlags, field::kSeqIncrementalStateCleared);
        else if (needs_state)
            put_uint(tail, field::kPacketSequenceFlags, field::kSeqNeedsIncrementalState);
        in.first_packet = false;
        if (!in.symbols.pending.empty()) {
            std::string interned, entry;
            for (const auto& [iid, name] : in.symbols.pending) {
                entry.clear();
                put_uint(entry, field::kInternedStringIid, iid);
                put_bytes(entry, field::kInternedStringStr, name);
                put_bytes(interned, field::kInternedKernelSymbols, entry);
            }
            in.symbols.pending.clear();
            put_bytes(tail, field::kPacketInternedData, interned);
        }
        if (in.machine) put_uint(tail, field::kPacketMachineId, in.machine);
        size_t size = tail.size();
        for (auto b : body) size += b.size();
        put_varint(buf, tag(field::kTracePacket, WireType::len));
        put_varint(buf, size);
        for (auto b : body) buf.append(b.data(), b.size());
        buf += tail;
        if (buf.size() >= (1u << 20)) write_out();
    }

    void flush(Input& in, Bundle& b) {
        if (b.events.empty() && !b.lost) return;
        std::string head;
        put_uint(head, field::kBundleCpu, static_cast<uint32_t>(b.cpu));
        if (b.lost) put_uint(head, field::kBundleLostEvents, 1);
        scratch.clear();
        put_varint(scratch, tag(field::kPacketFtraceEvents, WireType::len));
        put_varint(scratch, head.size() + b.events.size());
        scratch += head;
        packet(in, {scratch, b.events}, true);
        b.events.clear();
        b.lost = false;
    }

    // What is known of the input before its events: system and task names.
    void start(Input& in, std::optional<uint64_t> ts) {
        in.started = true;
        std::string info, body;
        if (in.uname) put_utsname(info, *in.uname);
        put_uint(info, field::kSystemInfoPageSize, in.page_size);
        put_uint(info, field::kSystemInfoNumCpus, static_cast<uint32_t>(in.cpus));
        put_bytes(body, field::kPacketSystemInfo, info);
        packet(in, {body}, false, ts);

        // trace.dat keeps no thread groups: each task is its own group (tgid = tid) for Perfetto.
        std::string tree, thread;
        for (const auto& [pid, comm] : in.tasks) {
            thread.clear();
            put_int(thread, field::kThreadTid, pid);
            put_bytes(thread, field::kThreadName, comm);
            put_int(thread, field::kThreadTgid, pid);
            put_bytes(tree, field::kTreeThreads, thread);
        }
        body.clear();
        put_bytes(body, field::kPacketProcessTree, tree);
        packet(in, {body}, false, ts);
    }

    // Ftrace stats: START_OF_TRACE with nothing lost, END_OF_TRACE with the drops the trace
    // records per CPU as `overrun` (what report's "[N EVENTS DROPPED]" lines add up to) and the
    // rest of the kernel's per-CPU stats the file saved (CPUSTAT).
    void stats(Input& in) {
        const auto& cpustats = in.cpustats;
        const int cpus = in.cpus;
        for (uint32_t phase : {field::kPhaseStartOfTrace, field::kPhaseEndOfTrace}) {
            std::string s, cpu;
            put_uint(s, field::kStatsPhase, phase);
            for (int c = 0; c < cpus; ++c) {
                cpu.clear();
                put_uint(cpu, field::kCpuStatsCpu, static_cast<uint64_t>(c));
                const bool end = phase == field::kPhaseEndOfTrace;
                put_uint(cpu, field::kCpuStatsOverrun, end && in.dropped.count(c) ? in.dropped[c] : 0);
                if (end && static_cast<size_t>(c) < cpustats.size()) {
                    auto kv = parse_cpustat(cpustats[static_cast<size_t>(c)]);
                    auto num = [&](const char* key, uint32_t number) {
                        if (auto it = kv.find(key); it != kv.end())
                            put_uint(cpu, number, std::strtoull(it->second.c_str(), nullptr, 10));
                    };
                    auto real = [&](const char* key, uint32_t number) {
                        if (auto it = kv.find(key); it != kv.end())
                            put_double(cpu, number, std::strtod(it->second.c_str(), nullptr));
                    };
                    num("entries", field::kCpuStatsEntries);
                    num("commit overrun", field::kCpuStatsCommitOverrun);
                    num("bytes", field::kCpuStatsBytesRead);
                    real("oldest event ts", field::kCpuStatsOldestEventTs);
                    real("now ts", field::kCpuStatsNowTs);
                    num("dropped events", field::kCpuStatsDroppedEvents);
                    num("read events", field::kCpuStatsReadEvents);
                }
                put_bytes(s, field::kStatsCpuStats, cpu);
            }
            std::string body;
            put_bytes(body, field::kPacketFtraceStats, s);
            const uint64_t ts = phase == field::kPhaseStartOfTrace ? in.first_ts : in.last_ts;
            packet(in, {body}, false, in.started ? std::optional<uint64_t>(ts) : std::nullopt);
        }
    }
};

TraceWriter::TraceWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TraceWriter::~TraceWriter() = default;

Expected<std::unique_ptr<TraceWriter>> TraceWriter::create(const std::string& path) {
    auto impl = std::make_unique<Impl>(path);
    auto f = impl->out.open();
    if (!f) return f.error();
    impl->file = *f;
    return std::unique_ptr<TraceWriter>(new TraceWriter(std::move(impl)));
}

void TraceWriter::add_input(int input, const engine::TraceFile& file) {
    auto& v = impl_->inputs;
    if (static_cast<size_t>(input) >= v.size()) v.resize(static_cast<size_t>(input) + 1);
    Input& in = v[static_cast<size_t>(input)];
    in.declared = true;
    in.uname = file.reader().options().uname;
    in.page_size = file.reader().page_size();
    in.cpus = file.cpu_count();
    in.cpustats = file.reader().options().cpustats;
    file.comms().for_each([&](int pid, std::string_view comm) {
        if (pid > 0) in.tasks.emplace_back(pid, std::string(comm));
    });
    std::sort(in.tasks.begin(), in.tasks.end());
    in.sequence = static_cast<uint32_t>(input) + 1;
    in.machine = static_cast<uint32_t>(input);
}

void TraceWriter::on_event(int input, int stream, const Event& ev) {
    Impl& m = *impl_;
    Input& in = m.inputs[static_cast<size_t>(input)];
    const uint64_t ts = ev.timestamp();
    if (!in.started) [[unlikely]] {
        in.first_ts = ts;
        m.start(in, ts);
    }
    in.last_ts = ts;
    if (static_cast<size_t>(stream) >= in.bundles.size()) in.bundles.resize(static_cast<size_t>(stream) + 1);
    Bundle& b = in.bundles[static_cast<size_t>(stream)];
    b.cpu = ev.cpu();
    if (int64_t missed = ev.missed_before()) [[unlikely]] {
        m.flush(in, b);
        b.lost = true;
        if (missed > 0) in.dropped[ev.cpu()] += static_cast<uint64_t>(missed);
    }
    const size_t at = begin_nested(b.events, field::kBundleEvent);
    m.encoder.encode(ev, in.symbols, b.events);
    end_nested(b.events, at);
    ++m.events;
    if (b.events.size() >= kBundleBytes) m.flush(in, b);
}

Status TraceWriter::finish() {
    Impl& m = *impl_;
    for (Input& in : m.inputs) {
        if (!in.declared) continue;
        if (!in.started) m.start(in, std::nullopt);
        for (Bundle& b : in.bundles) m.flush(in, b);
        m.stats(in);
    }
    m.write_out();
    if (m.write_failed) return Error(Errc::io, m.out.path() + ": write failed");
    m.file = nullptr;
    return m.out.commit();
}

uint64_t TraceWriter::events() const noexcept {
    return impl_->events;
}
uint64_t TraceWriter::bytes() const noexcept {
    return impl_->bytes + impl_->buf.size();
}

}  // namespace ringscope::perfetto
