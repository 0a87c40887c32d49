#include "framework/perfetto/trace_writer.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <deque>
#include <initializer_list>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "framework/engine/trace_file.hpp"
#include "framework/io/atomic_output.hpp"
#include "framework/perfetto/compact_sched.hpp"
#include "framework/perfetto/event_encoder.hpp"
#include "framework/perfetto/ftrace_schema.hpp"
#include "framework/perfetto/proto_writer.hpp"
#include "framework/tasks/tgid_tracker.hpp"

namespace ringscope::perfetto {
namespace {

// A packet sequence: its id, machine, and what it has interned.
struct Sequence {
    uint32_t id = 0;
    uint32_t machine = 0;
    bool first_packet = true;
    SymbolInterner symbols;
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
    // Each task's process, from the events (task_newtask, sched_process_exec): the streams keep what
    // each of their events said, and finish() applies it in time order.
    std::optional<tasks::TgidTracker> tgids;
    uint32_t ftrace_clock = field::kFtraceClockUnspecified;
    Sequence seq;
    std::atomic<bool> started{false};
    std::optional<uint64_t> first_ts;
    std::map<int, std::unique_ptr<TraceWriter::Stream>> streams;  // by stream id
    // The file, while its events come (a run closes it before finish()): formats bprint texts.
    engine::TraceFile* file = nullptr;
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

uint32_t ftrace_clock_for(std::string_view clock, bool nanoseconds) noexcept {
    if (!nanoseconds) return field::kFtraceClockUnspecified;
    if (clock == "local" || clock == "perf") return field::kFtraceClockLocal;
    if (clock == "global") return field::kFtraceClockGlobal;
    if (clock == "mono_raw") return field::kFtraceClockMonoRaw;
    return field::kFtraceClockUnspecified;
}

class TraceWriter::Stream {
  public:
    explicit Stream(engine::TraceFile* file) : encoder(file) {}
    Sequence seq;
    int input = 0;
    int cpu = 0;
    bool lost = false;  // events were dropped just before the bundle's first one
    Bytes events;       // the bundle being filled
    EventEncoder encoder;
    uint64_t count = 0, last_ts = 0;
    bool any = false;
    uint32_t clock = field::kFtraceClockUnspecified;
    std::optional<uint64_t> bundle_ts;  // the bundle's first event's time
    const tasks::TgidTracker* tgids = nullptr;
    std::vector<std::pair<uint64_t, tasks::TaskChange>> task_changes;  // (time, change), rare events
    uint64_t last_pair = 0;                                            // the stream's last ftrace_timestamp
    CompactSched compact;
    std::map<int, uint64_t> dropped;  // CPU -> events the trace says were lost (known counts)
    std::string head, prefix, tail;   // scratch
};

struct TraceWriter::Impl {
    Impl(std::string path, WriterOptions o) : out(std::move(path)), options(o) {}

    io::AtomicOutput out;
    WriterOptions options;
    int fd = -1;    // the temporary file's: packets go to offsets reserved under mu
    std::mutex mu;  // the output buffer and offset, stream creation
    std::string buf;
    std::deque<Input> inputs;
    uint32_t next_sequence = 1;
    uint64_t bytes = 0;  // reserved so far: where the next write goes
    std::atomic<bool> write_failed{false};
    uint64_t last_pair_written = ~uint64_t{0};  // the last bundle's ftrace_timestamp, in file order

    void write_at(std::string_view b, uint64_t at) {
        while (!b.empty()) {
            const ssize_t n = ::pwrite(fd, b.data(), b.size(), static_cast<off_t>(at));
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                write_failed = true;
                return;
            }
            b.remove_prefix(static_cast<size_t>(n));
            at += static_cast<uint64_t>(n);
        }
    }

    // Takes N bytes of the file at its end (mu held). The file's blocks are allocated ahead in
    // large steps: ext4 then maps each page written once per step, not once per page (about a
    // third of the kernel's time for the writes); finish() cuts the file to what was written.
    uint64_t reserve(size_t n) {
        const uint64_t at = bytes;
        bytes += n;
        if (bytes > allocated && allocated != kNoAllocation) {
            const uint64_t want = (bytes + kAllocateStep - 1) / kAllocateStep * kAllocateStep;
            if (::fallocate(fd, 0, static_cast<off_t>(allocated), static_cast<off_t>(want - allocated)) == 0)
                allocated = want;
            else
                allocated = kNoAllocation;  // not supported here (or no space: the writes say so)
        }
        return at;
    }
    static constexpr uint64_t kAllocateStep = 32u << 20;
    static constexpr uint64_t kNoAllocation = ~uint64_t{0};
    uint64_t allocated = 0;

    void write_out() {  // mu held
        if (buf.empty()) return;
        write_at(buf, reserve(buf.size()));
        buf.clear();
    }

    // One TracePacket of sequence SEQ: BODY (its fields, in pieces), then the sequence fields
    // and any kernel symbols interned since its last packet. TAIL is the caller's scratch.
    void packet(Sequence& seq, std::initializer_list<std::string_view> body, bool needs_state,
                std::optional<uint64_t> ts, std::string& tail) {
        packet_tail(seq, needs_state, ts, tail);
        std::lock_guard lock(mu);
        append_locked(body, tail);
    }

    // A packet's fields after its body: time, sequence, interned symbols, machine.
    void packet_tail(Sequence& seq, bool needs_state, std::optional<uint64_t> ts, std::string& tail) {
        tail.clear();
        if (ts) put_uint(tail, field::kPacketTimestamp, *ts);
        put_uint(tail, field::kPacketSequenceId, seq.id);
        if (seq.first_packet)
            put_uint(tail, field::kPacketSequenceFlags, field::kSeqIncrementalStateCleared);
        else if (needs_state)
            put_uint(tail, field::kPacketSequenceFlags, field::kSeqNeedsIncrementalState);
        seq.first_packet = false;
        if (!seq.symbols.pending.empty()) {
            std::string interned, entry;
            for (const auto& [iid, name] : seq.symbols.pending) {
                entry.clear();
                put_uint(entry, field::kInternedStringIid, iid);
                put_bytes(entry, field::kInternedStringStr, name);
                put_bytes(interned, field::kInternedKernelSymbols, entry);
            }
            seq.symbols.pending.clear();
            put_bytes(tail, field::kPacketInternedData, interned);
        }
        if (seq.machine) put_uint(tail, field::kPacketMachineId, seq.machine);
    }

    // Appends a packet to the output (mu held).
    void append_locked(std::initializer_list<std::string_view> body, std::string_view tail) {
        size_t size = tail.size();
        for (auto b : body) size += b.size();
        put_varint(buf, tag(field::kTracePacket, WireType::len));
        put_varint(buf, size);
        for (auto b : body) buf.append(b.data(), b.size());
        buf.append(tail.data(), tail.size());
        if (buf.size() >= (1u << 20)) write_out();
    }

    void flush(Stream& s) {
        if (s.events.empty() && s.compact.empty() && !s.lost) return;
        s.compact.write(s.events);
        s.head.clear();
        // The CPU first: trace processor's fast path expects it there.
        put_uint(s.head, field::kBundleCpu, static_cast<uint32_t>(s.cpu));
        if (s.lost) put_uint(s.head, field::kBundleLostEvents, 1);
        packet_tail(s.seq, true, std::nullopt, s.tail);
        // The packet's place in the file is taken under the lock, after what BUF holds (packets
        // stay in the order they were made); the bundle is written outside it, from its own
        // buffer, while the other streams go on.
        uint64_t at;
        {
            std::lock_guard lock(mu);
            if (s.clock != field::kFtraceClockUnspecified) clock_fields(s);
            const size_t bundle = s.head.size() + s.events.size();
            s.prefix.clear();
            put_varint(s.prefix, tag(field::kTracePacket, WireType::len));
            put_varint(s.prefix, bytes_field_size(field::kPacketFtraceEvents, bundle) + s.tail.size());
            put_varint(s.prefix, tag(field::kPacketFtraceEvents, WireType::len));
            put_varint(s.prefix, bundle);
            s.prefix += s.head;
            write_out();
            at = reserve(s.prefix.size() + s.events.size() + s.tail.size());
        }
        write_at(s.prefix, at);
        write_at(s.events, at + s.prefix.size());
        write_at(s.tail, at + s.prefix.size() + s.events.size());
        s.events.clear();
        s.lost = false;
        s.bundle_ts.reset();
    }

    // The bundle's clock and, as traced_probes writes with a clock other than boot, a pair of
    // (ftrace clock, CLOCK_BOOTTIME) times trace processor maps the clock with. trace.dat records
    // no boot time, so the pair is the identity: Perfetto's time line is the trace clock's, the
    // times report prints. Trace processor keeps one such clock per sequence for local and
    // global (the pairs of a stream must not go back) and skips a pair equal to the previous
    // bundle's, so a stream's pair never repeats the last one written; mono_raw is one clock for
    // the whole machine: one pair, the input's first time, in every bundle. (mu held.)
    void clock_fields(Stream& s) {
        put_uint(s.head, field::kBundleFtraceClock, s.clock);
        if (!s.bundle_ts) return;
        uint64_t t;
        if (s.clock == field::kFtraceClockMonoRaw) {
            const Input& in = inputs[static_cast<size_t>(s.input)];
            t = in.first_ts ? *in.first_ts : *s.bundle_ts;
        } else {
            t = std::max(*s.bundle_ts, s.last_pair);
            if (t == last_pair_written) ++t;
            s.last_pair = t;
        }
        last_pair_written = t;
        put_int(s.head, field::kBundleFtraceTimestamp, static_cast<int64_t>(t));
        put_int(s.head, field::kBundleBootTimestamp, static_cast<int64_t>(t));
    }

    // What is known of the input before its events: system and task names.
    void start(Input& in, std::optional<uint64_t> ts) {
        in.first_ts = ts;
        std::string info, body, tail;
        if (in.uname) put_utsname(info, *in.uname);
        put_uint(info, field::kSystemInfoPageSize, in.page_size);
        put_uint(info, field::kSystemInfoNumCpus, static_cast<uint32_t>(in.cpus));
        put_bytes(body, field::kPacketSystemInfo, info);
        packet(in.seq, {body}, false, ts, tail);
    }

    // The tasks and their processes, once every event has been seen; the packet carries the
    // input's first time, so trace processor knows them from the start. trace.dat keeps no thread
    // groups: a task the events say nothing of leads its own (tgid = tid), as TgidTracker says.
    // A process is listed when it has threads (named by its leader) or a parent process the
    // events name (sched_process_fork, task_newtask), so trace processor links it to its parent.
    void process_tree(Input& in) {
        std::vector<std::pair<uint64_t, tasks::TaskChange>> changes;
        for (auto& [id, s] : in.streams) {
            changes.insert(changes.end(), s->task_changes.begin(), s->task_changes.end());
            s->task_changes = {};
        }
        std::stable_sort(changes.begin(), changes.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        std::map<int, std::string_view> names(in.tasks.begin(), in.tasks.end());
        for (const auto& [ts, c] : changes) {
            in.tgids->apply(c);
            names.try_emplace(c.pid);  // a task made in the trace whose name was not saved
        }
        std::string tree, entry, body, tail;
        std::set<int> processes;  // with a thread besides the leader, or a parent the events name
        for (const auto& [pid, comm] : names) {
            const int32_t tgid = in.tgids->tgid(pid);
            if (tgid != pid || in.tgids->parent(pid)) processes.insert(tgid);
            entry.clear();
            put_int(entry, field::kThreadTid, pid);
            if (!comm.empty()) put_bytes(entry, field::kThreadName, comm);
            put_int(entry, field::kThreadTgid, tgid);
            put_bytes(tree, field::kTreeThreads, entry);
        }
        for (const int tgid : processes) {
            entry.clear();
            put_int(entry, field::kProcessPid, tgid);
            if (auto ppid = in.tgids->parent(tgid)) put_int(entry, field::kProcessPpid, *ppid);
            if (auto it = names.find(tgid); it != names.end() && !it->second.empty())
                put_bytes(entry, field::kProcessCmdline, it->second);
            put_bytes(tree, field::kTreeProcesses, entry);
        }
        put_bytes(body, field::kPacketProcessTree, tree);
        packet(in.seq, {body}, false, in.first_ts, tail);
    }

    // Ftrace stats: START_OF_TRACE with nothing lost, END_OF_TRACE with the drops the trace
    // records per CPU as `overrun` (what report's "[N EVENTS DROPPED]" lines add up to) and the
    // rest of the kernel's per-CPU stats the file saved (CPUSTAT).
    void stats(Input& in) {
        std::map<int, uint64_t> dropped;
        std::optional<uint64_t> last_ts;
        for (const auto& [id, s] : in.streams) {
            for (const auto& [cpu, n] : s->dropped) dropped[cpu] += n;
            if (s->any && (!last_ts || s->last_ts > *last_ts)) last_ts = s->last_ts;
        }
        const auto& cpustats = in.cpustats;
        const int cpus = in.cpus;
        for (uint32_t phase : {field::kPhaseStartOfTrace, field::kPhaseEndOfTrace}) {
            std::string s, cpu;
            put_uint(s, field::kStatsPhase, phase);
            for (int c = 0; c < cpus; ++c) {
                cpu.clear();
                put_uint(cpu, field::kCpuStatsCpu, static_cast<uint64_t>(c));
                const bool end = phase == field::kPhaseEndOfTrace;
                put_uint(cpu, field::kCpuStatsOverrun, end && dropped.count(c) ? dropped[c] : 0);
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
            std::string body, tail;
            put_bytes(body, field::kPacketFtraceStats, s);
            packet(in.seq, {body}, false, phase == field::kPhaseStartOfTrace ? in.first_ts : last_ts, tail);
        }
    }
};

TraceWriter::TraceWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TraceWriter::~TraceWriter() = default;

Expected<std::unique_ptr<TraceWriter>> TraceWriter::create(const std::string& path, WriterOptions options) {
    auto impl = std::make_unique<Impl>(path, options);
    auto f = impl->out.open();
    if (!f) return f.error();
    impl->fd = ::fileno(*f);
    return std::unique_ptr<TraceWriter>(new TraceWriter(std::move(impl)));
}

void TraceWriter::add_input(int input, engine::TraceFile& file) {
    auto& v = impl_->inputs;
    while (static_cast<size_t>(input) >= v.size()) v.emplace_back();
    Input& in = v[static_cast<size_t>(input)];
    in.declared = true;
    in.file = &file;
    in.uname = file.reader().options().uname;
    in.page_size = file.reader().page_size();
    in.cpus = file.cpu_count();
    in.cpustats = file.reader().options().cpustats;
    in.ftrace_clock = ftrace_clock_for(file.trace_clock(), file.in_usecs());
    // A guest's times are put on its host's time line (TIME_SHIFT, as report merges them): its
    // bundles name the host's clock, so Perfetto reads both machines on the same one.
    if (input > 0 && file.clock().has_time_shift() && v[0].declared) in.ftrace_clock = v[0].ftrace_clock;
    file.comms().for_each([&](int pid, std::string_view comm) {
        if (pid > 0) in.tasks.emplace_back(pid, std::string(comm));
    });
    std::sort(in.tasks.begin(), in.tasks.end());
    in.tgids.emplace(file);
    in.seq.id = impl_->next_sequence++;
    in.seq.machine = static_cast<uint32_t>(input);
}

void TraceWriter::add_input(int input, int cpus) {
    auto& v = impl_->inputs;
    while (static_cast<size_t>(input) >= v.size()) v.emplace_back();
    Input& in = v[static_cast<size_t>(input)];
    in.declared = true;
    in.cpus = cpus;
    in.seq.id = impl_->next_sequence++;
    in.seq.machine = static_cast<uint32_t>(input);
}

void TraceWriter::begin_input(int input, std::optional<uint64_t> first_ts) {
    Input& in = impl_->inputs[static_cast<size_t>(input)];
    if (!in.started.exchange(true)) impl_->start(in, first_ts);
}

TraceWriter::Stream& TraceWriter::stream(int input, int stream_id) {
    std::lock_guard lock(impl_->mu);
    Input& in = impl_->inputs[static_cast<size_t>(input)];
    auto& s = in.streams[stream_id];
    if (!s) {
        s = std::make_unique<Stream>(in.file);
        s->input = input;
        s->seq.id = impl_->next_sequence++;
        s->seq.machine = in.seq.machine;
        s->clock = in.ftrace_clock;
        s->tgids = in.tgids ? &*in.tgids : nullptr;
    }
    return *s;
}

void TraceWriter::on_event(Stream& s, const Event& ev) {
    Impl& m = *impl_;
    const uint64_t ts = ev.timestamp();
    if (!s.any) [[unlikely]] {
        s.any = true;
        Input& in = m.inputs[static_cast<size_t>(s.input)];
        if (!in.started.load(std::memory_order_acquire)) begin_input(s.input, ts);
    }
    s.last_ts = ts;
    s.cpu = ev.cpu();
    if (int64_t missed = ev.missed_before()) [[unlikely]] {
        m.flush(s);
        s.lost = true;
        if (missed > 0) s.dropped[ev.cpu()] += static_cast<uint64_t>(missed);
    }
    if (!s.bundle_ts) s.bundle_ts = ts;
    ++s.count;
    if (s.tgids) [[likely]]
        if (auto c = s.tgids->change(ev)) [[unlikely]]
            s.task_changes.emplace_back(ts, *c);
    if (m.options.compact_sched && s.encoder.encode_compact(ev, s.compact)) {
        if (s.events.size() + s.compact.size() >= kBundleBytes) m.flush(s);
        return;
    }
    const size_t at = begin_nested(s.events, field::kBundleEvent);
    s.encoder.encode(ev, s.seq.symbols, s.events);
    end_nested(s.events, at);
    if (s.events.size() + (m.options.compact_sched ? s.compact.size() : 0) >= kBundleBytes) m.flush(s);
}

Status TraceWriter::finish() {
    Impl& m = *impl_;
    for (size_t i = 0; i < m.inputs.size(); ++i) {
        Input& in = m.inputs[i];
        if (!in.declared) continue;
        begin_input(static_cast<int>(i), std::nullopt);
        for (auto& [id, s] : in.streams) m.flush(*s);
        if (in.tgids) m.process_tree(in);
        m.stats(in);
    }
    m.write_out();
    if (m.allocated != Impl::kNoAllocation && m.allocated > m.bytes &&
        ::ftruncate(m.fd, static_cast<off_t>(m.bytes)) != 0)
        m.write_failed = true;
    if (m.write_failed) return Error(Errc::io, m.out.path() + ": write failed");
    m.fd = -1;
    return m.out.commit();
}

uint64_t TraceWriter::events() const noexcept {
    uint64_t n = 0;
    for (const Input& in : impl_->inputs)
        for (const auto& [id, s] : in.streams) n += s->count;
    return n;
}
uint64_t TraceWriter::bytes() const noexcept {
    return impl_->bytes + impl_->buf.size();
}

}  // namespace ringscope::perfetto
