#include "framework/sinks/perfetto_sink.hpp"

#include <map>
#include <unordered_map>

#include "framework/io/atomic_output.hpp"
#include "framework/text/text_escape.hpp"

namespace ringscope::sinks {

void append_json_string(std::string& out, std::string_view s) {
    out += '"';
    text::escape_into(out, s, TextTarget::json);  // bytes from the trace need not be UTF-8
    out += '"';
}

namespace {

// Microseconds with ns precision, as Chrome's JSON format wants them.
void append_us(std::string& out, uint64_t ns) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%llu.%03llu", static_cast<unsigned long long>(ns / 1000),
                  static_cast<unsigned long long>(ns % 1000));
    out += buf;
}

}  // namespace

struct PerfettoSink::Impl {
    struct Slice {
        bool open = false;
        uint64_t start = 0;
        std::string name;
        int64_t pid = 0;
    };
    struct Handles {
        bool ready = false;
        FieldHandle next_pid, next_comm, pid, comm, vcpu, reason, isa, buf;
    };
    struct Input {
        std::string name;
        int cpus = 0;
        std::map<int, Slice> cpu;       // task slice per CPU
        std::map<int64_t, Slice> vcpu;  // open exit per vCPU
        std::map<int, bool> running;    // CPU -> a non-idle task runs
        int running_count = 0;
        bool kvm = false;
    };

    explicit Impl(std::string path) : out(std::move(path)) {}

    int cpu_pid(int input) const { return 2 * input + 1; }
    int kvm_pid(int input) const { return 2 * input + 2; }

    void begin_event(char ph, const std::string_view name, int pid, int64_t tid, uint64_t ts) {
        buf += first ? "\n" : ",\n";
        first = false;
        buf += "{\"ph\":\"";
        buf += ph;
        buf += "\",\"name\":";
        append_json_string(buf, name);
        buf += ",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) + ",\"ts\":";
        append_us(buf, ts);
    }
    void slice(int pid, int64_t tid, const Slice& s, uint64_t end, const char* cat) {
        begin_event('X', s.name, pid, tid, s.start);
        buf += ",\"dur\":";
        append_us(buf, end > s.start ? end - s.start : 0);
        buf += ",\"cat\":\"";
        buf += cat;
        buf += "\",\"args\":{\"pid\":" + std::to_string(s.pid) + "}}";
        flush_if_big();
    }
    void flush_if_big() {
        if (buf.size() > (1u << 20)) flush();
    }
    void flush() {
        if (file) std::fwrite(buf.data(), 1, buf.size(), file);
        buf.clear();
    }
    const Handles& handles(const EventType& t) {
        Handles& h = handles_by_type[&t];
        if (!h.ready) {
            h.ready = true;
            h.next_pid = t.handle("next_pid");
            h.next_comm = t.handle("next_comm");
            h.pid = t.handle("pid");
            h.comm = t.handle("comm");
            h.vcpu = t.handle("vcpu_id");
            h.reason = t.handle("exit_reason");
            h.isa = t.handle("isa");
            h.buf = t.handle("buf");
        }
        return h;
    }

    io::AtomicOutput out;
    std::FILE* file = nullptr;
    std::string buf;
    bool first = true;
    uint64_t last_ts = 0;
    std::map<int, Input> inputs;
    std::unordered_map<const EventType*, Handles> handles_by_type;
    std::string scratch;
};

PerfettoSink::PerfettoSink(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PerfettoSink::~PerfettoSink() = default;

Expected<std::unique_ptr<PerfettoSink>> PerfettoSink::create(const std::string& path) {
    auto impl = std::make_unique<Impl>(path);
    auto f = impl->out.open();
    if (!f) return f.error();
    impl->file = *f;
    impl->buf = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
    return std::unique_ptr<PerfettoSink>(new PerfettoSink(std::move(impl)));
}

Status PerfettoSink::add_input(int input, const std::string& input_name, const std::string&, int cpus) {
    auto& in = impl_->inputs[input];
    in.name = input_name;
    in.cpus = cpus;
    return {};
}

namespace {

// A kvm_exit's reason as the kernel's print fmt names it: one __print_symbolic table per ISA, VMX
// (isa 1) first, SVM (isa 2) second.
std::string exit_reason_name(const Event& ev, uint64_t reason, bool vmx) {
    const ValueTable* table = nullptr;
    for (const auto& t : ev.type().tables) {
        if (t.is_flags || t.field.find("exit_reason") == std::string::npos) continue;
        if (vmx && table) break;
        table = &t;
    }
    if (vmx) reason &= 0xffff;
    std::string name;
    if (table)
        for (const auto& [v, text] : table->entries)
            if (v == reason) {
                name = text;
                break;
            }
    if (name.empty()) name = "exit " + std::to_string(reason);
    return name;
}

}  // namespace

void PerfettoSink::on_event(int input, const Event& ev) {
    Impl& m = *impl_;
    Impl::Input& in = m.inputs[input];
    const uint64_t ts = ev.timestamp();
    if (ts > m.last_ts) m.last_ts = ts;
    std::string_view sys = ev.system(), name = ev.name();
    const int cpu = ev.cpu();
    if (sys == "sched" && name == "sched_switch") {
        const auto& h = m.handles(ev.type());
        Impl::Slice& s = in.cpu[cpu];
        if (s.open) m.slice(m.cpu_pid(input), cpu, s, ts, "sched");
        int next = static_cast<int>(ev.integer(h.next_pid));
        s.open = next != 0;  // the idle task leaves the track empty
        s.start = ts;
        s.pid = next;
        s.name.assign(ev.str(h.next_comm));
        bool& run = in.running[cpu];
        if (run != s.open) {
            run = s.open;
            in.running_count += run ? 1 : -1;
            m.begin_event('C', in.name + " running CPUs", m.cpu_pid(input), 0, ts);
            m.buf += ",\"args\":{\"cpus\":" + std::to_string(in.running_count) + "}}";
        }
        return;
    }
    if (sys == "kvm" && (name == "kvm_exit" || name == "kvm_entry")) {
        const auto& h = m.handles(ev.type());
        int64_t vcpu = h.vcpu ? ev.integer(h.vcpu) : ev.pid();  // older kernels: the vCPU thread
        in.kvm = true;
        Impl::Slice& s = in.vcpu[vcpu];
        if (name == "kvm_exit") {
            s.open = true;
            s.start = ts;
            s.pid = ev.pid();
            s.name = exit_reason_name(ev, ev.u64(h.reason), h.isa && ev.integer(h.isa) == 1);
        } else if (s.open) {
            m.slice(m.kvm_pid(input), vcpu, s, ts, "kvm");
            s.open = false;
        }
        return;
    }
    // Instants: what marks a moment rather than a span.
    const bool wake = sys == "sched" && (name == "sched_wakeup" || name == "sched_wakeup_new" ||
                                         name == "sched_process_fork" || name == "sched_process_exec" ||
                                         name == "sched_process_exit" || name == "sched_migrate_task");
    const bool print = sys == "ftrace" && name == "print";
    if (!wake && !print) return;
    const auto& h = m.handles(ev.type());
    m.scratch.assign(name);
    if (wake && h.pid) {
        m.scratch += ' ';
        m.scratch.append(ev.str(h.comm));
        m.scratch += ':' + std::to_string(ev.integer(h.pid));
    } else if (print) {
        m.scratch = "print: ";
        std::string_view text = ev.str(h.buf);
        while (!text.empty() && text.back() == '\n') text.remove_suffix(1);
        m.scratch.append(text);
    }
    m.begin_event('i', m.scratch, m.cpu_pid(input), cpu, ts);
    m.buf += ",\"s\":\"t\"}";
    m.flush_if_big();
}

Status PerfettoSink::finish() {
    Impl& m = *impl_;
    for (auto& [i, in] : m.inputs) {
        for (auto& [cpu, s] : in.cpu)
            if (s.open) m.slice(m.cpu_pid(i), cpu, s, m.last_ts, "sched");
        for (auto& [v, s] : in.vcpu)
            if (s.open) m.slice(m.kvm_pid(i), v, s, m.last_ts, "kvm");
        // Track names: metadata events.
        auto meta = [&](const char* what, int pid, int64_t tid, const std::string& value) {
            m.buf += m.first ? "\n" : ",\n";
            m.first = false;
            m.buf += "{\"ph\":\"M\",\"name\":\"";
            m.buf += what;
            m.buf += "\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) +
                     ",\"args\":{\"name\":";
            append_json_string(m.buf, value);
            m.buf += "}}";
        };
        meta("process_name", m.cpu_pid(i), 0, in.name + " CPUs");
        for (int c = 0; c < in.cpus; ++c) meta("thread_name", m.cpu_pid(i), c, "CPU " + std::to_string(c));
        if (in.kvm) {
            meta("process_name", m.kvm_pid(i), 0, in.name + " KVM vCPUs");
            for (const auto& [v, s] : in.vcpu)
                meta("thread_name", m.kvm_pid(i), v, "vCPU " + std::to_string(v));
        }
    }
    m.buf += "\n]}\n";
    m.flush();
    m.file = nullptr;
    return m.out.close();  // the caller commits every output at once
}

Status PerfettoSink::commit() {
    return impl_->out.commit();
}

}  // namespace ringscope::sinks
