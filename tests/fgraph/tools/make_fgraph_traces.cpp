// make_fgraph_traces OUTDIR: writes OUTDIR/fgraph-FLAVOUR.dat, one trace.dat per kernel format of
// fgraph_formats.hpp, each holding the same function_graph story on two CPUs: nesting and leaves,
// an interrupt nested into a call, deep and huge depths, durations in and at the edge of every
// mark band, overruns, exits without entries and entries without exits, an entry followed by
// another task's exit or another function's, the same task's exit on the other CPU, CPUs that
// interleave (and tie) between an entry and its exit, unresolved functions, rettime before
// calltime, return values and return addresses (where the format has them), function events, an
// entry at the end of a page (and of a compressed chunk) whose exit opens the next page, one of
// them with events dropped before it. The function tracer cannot run on this machine
// (see tests/data/fgraph/README.md); trace-cmd report on these files gives the oracles.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "fgraph_formats.hpp"
#include "framework/io/trace_dat_writer.hpp"

using namespace ringscope;
using namespace fgraph_tool;

namespace {

enum class Kind { entry, exit, retaddr_entry, function, irq };

// One record of the story. Functions are symbol names ("" = `addr`, outside every symbol).
struct Rec {
    int cpu = 0;
    uint64_t ts = 0;
    Kind kind = Kind::entry;
    int pid = 0;
    std::string func;
    uint64_t addr = 0;
    uint64_t depth = 0;
    uint64_t calltime = 0, rettime = 0, overrun = 0, retval = 0;
    std::string caller;  // retaddr_entry: the return address's function, + caller_off
    uint32_t caller_off = 0;
    std::string parent;  // function events
    int irq = 0;
    bool page_break_after = false;  // this record ends its page
    bool missed_before = false;     // the page this record opens lost events before it
};

// The symbols, in address order (each 0x200 bytes long; "zz_end" closes the last).
const char* const kSymbols[] = {"do_syscall_64",
                                "__x64_sys_read",
                                "ksys_read",
                                "vfs_read",
                                "rw_verify_area",
                                "security_file_permission",
                                "apparmor_file_permission",
                                "__fsnotify_parent",
                                "schedule",
                                "__schedule",
                                "pick_next_task_fair",
                                "update_curr",
                                "do_IRQ",
                                "irq_enter",
                                "handle_irq_event",
                                "serial8250_interrupt",
                                "irq_exit",
                                "_raw_spin_lock",
                                "_raw_spin_unlock",
                                "tick_sched_timer",
                                "hrtimer_interrupt",
                                "kmem_cache_alloc",
                                "kfree",
                                "copy_page_to_iter",
                                "filemap_read",
                                "entry_SYSCALL_64_after_hwframe",
                                "zz_end"};

class Story {
  public:
    explicit Story(uint64_t base) : base_(base) {}
    std::vector<Rec> recs;

    Rec& add(Rec r) {
        recs.push_back(std::move(r));
        return recs.back();
    }
    Rec& entry(int cpu, uint64_t t, int pid, const std::string& f, uint64_t depth) {
        Rec& r = add(at(cpu, t, Kind::entry, pid));
        r.func = f;
        r.depth = depth;
        return r;
    }
    Rec& exit(int cpu, uint64_t t, int pid, const std::string& f, uint64_t depth, uint64_t dur) {
        Rec& r = add(at(cpu, t, Kind::exit, pid));
        r.func = f;
        r.depth = depth;
        r.rettime = base_ + t;
        r.calltime = r.rettime - dur;
        return r;
    }
    // An entry and its exit DUR later, next to each other on the CPU: a leaf.
    void leaf(int cpu, uint64_t t, int pid, const std::string& f, uint64_t depth, uint64_t dur) {
        entry(cpu, t, pid, f, depth);
        exit(cpu, t + dur, pid, f, depth, dur);
    }
    void irq(int cpu, uint64_t t, int pid, int irq) { add(at(cpu, t, Kind::irq, pid)).irq = irq; }
    void function(int cpu, uint64_t t, int pid, const std::string& f, const std::string& parent) {
        Rec& r = add(at(cpu, t, Kind::function, pid));
        r.func = f;
        r.parent = parent;
    }

  private:
    Rec at(int cpu, uint64_t t, Kind kind, int pid) const {
        Rec r;
        r.cpu = cpu;
        r.ts = base_ + t;
        r.kind = kind;
        r.pid = pid;
        return r;
    }
    uint64_t base_;
};

constexpr int kBash = 1234, kCc1 = 2345, kOther = 999, kIdle = 0, kWorker = 35;

// CPU 0 and CPU 1 from `base` (ns); each CPU's records come out in time order.
Story story(const Flavour& fl) {
    Story s(5000ull * 1000000000ull);
    const bool retaddr = !fl.extra.empty();
    // Nesting and leaves (CPU 0).
    s.entry(0, 1000, kBash, "do_syscall_64", 0);
    s.entry(0, 1200, kBash, "__x64_sys_read", 1);
    s.entry(0, 1400, kBash, "ksys_read", 2);
    s.entry(0, 1600, kBash, "vfs_read", 3);
    s.leaf(0, 1800, kBash, "rw_verify_area", 4, 150);
    s.entry(0, 2100, kBash, "security_file_permission", 4);
    s.leaf(0, 2300, kBash, "apparmor_file_permission", 5, 300);
    s.exit(0, 2800, kBash, "security_file_permission", 4, 700);
    s.leaf(0, 3000, kBash, "__fsnotify_parent", 4, 12000);
    s.exit(0, 16000, kBash, "vfs_read", 3, 14400);
    s.exit(0, 16300, kBash, "ksys_read", 2, 14900);
    s.exit(0, 16500, kBash, "__x64_sys_read", 1, 15300);
    s.exit(0, 16800, kBash, "do_syscall_64", 0, 15800).overrun = 3;
    // An interrupt nested into a call (CPU 0).
    s.entry(0, 20000, kBash, "schedule", 0);
    s.entry(0, 20100, kBash, "__schedule", 1);
    s.entry(0, 20200, kBash, "do_IRQ", 2);
    s.irq(0, 20300, kBash, 4);
    s.leaf(0, 20400, kBash, "handle_irq_event", 3, 2500);
    s.exit(0, 23500, kBash, "do_IRQ", 2, 3300);
    s.leaf(0, 23600, kBash, "pick_next_task_fair", 2, 800);
    s.exit(0, 24600, kBash, "__schedule", 1, 4500);
    s.exit(0, 24700, kBash, "schedule", 0, 4700);
    // Durations in every band and at the edges, as leaves (CPU 1) and as nested exits (CPU 0).
    const uint64_t durations[] = {
        999,       10000,      10001,      99999,          100000,         100001,
        999999,    1000000,    1000001,    9999999,        50000000,       500000000,
        999999999, 1000000000, 1000000001, 12345678901ull, 123456789012ull};
    uint64_t t = 30000;
    for (uint64_t d : durations) {
        s.leaf(1, t, kCc1, "kmem_cache_alloc", 0, d);
        t += d + 1000;
    }
    for (uint64_t d : durations) {
        s.entry(0, t, kBash, "filemap_read", 1);
        s.leaf(0, t + 100, kBash, "copy_page_to_iter", 2, 50);
        s.exit(0, t + d, kBash, "filemap_read", 1, d);
        t += d + 1000;
    }
    // Deep calls, and a depth as a kernel with a big max_graph_depth records it (CPU 1).
    for (uint64_t d = 0; d < 24; ++d)
        s.entry(1, t + d * 10, kCc1, d % 2 ? "_raw_spin_lock" : "update_curr", d);
    s.leaf(1, t + 300, kCc1, "_raw_spin_unlock", 24, 40);
    for (uint64_t d = 24; d-- > 0;)
        s.exit(1, t + 400 + (24 - d) * 10, kCc1, d % 2 ? "_raw_spin_lock" : "update_curr", d, 500 - d);
    s.leaf(1, t + 1000, kCc1, "kfree", 300, 77);
    s.leaf(1, t + 1200, kCc1, "kfree", 0xffffffff, 78);  // a depth of -1 as an int
    t += 2000;
    // An exit whose entry is not in the trace, an entry whose exit is lost (CPU 1).
    s.exit(1, t, kCc1, "irq_exit", 2, 640).overrun = 1;
    s.entry(1, t + 100, kCc1, "tick_sched_timer", 1);
    s.leaf(1, t + 200, kCc1, "hrtimer_interrupt", 1, 90);
    t += 1000;
    // The next record is another task's exit of the same function, or another function's (CPU 0).
    s.entry(0, t, kBash, "kfree", 1);
    s.exit(0, t + 50, kOther, "kfree", 1, 50);
    s.entry(0, t + 100, kBash, "kfree", 1);
    s.exit(0, t + 150, kBash, "kmem_cache_alloc", 1, 50);
    t += 1000;
    // The other CPU has a record between an entry and its exit; then ties at the exit's time
    // (the lower CPU goes first).
    s.entry(0, t, kBash, "irq_enter", 1);
    s.function(1, t + 10, kCc1, "update_curr", "schedule");
    s.exit(0, t + 20, kBash, "irq_enter", 1, 20);
    s.leaf(0, t + 100, kBash, "irq_enter", 1, 30);
    s.function(1, t + 130, kCc1, "update_curr", "__schedule");
    s.leaf(1, t + 200, kCc1, "irq_exit", 1, 30);
    s.function(0, t + 230, kBash, "irq_exit", "do_IRQ");
    t += 1000;
    // Addresses outside every symbol, and rettime before calltime (CPU 0).
    s.entry(0, t, kBash, "", 1).addr = 0x1000;
    s.entry(0, t + 10, kBash, "", 2).addr = 0x1100;
    s.exit(0, t + 20, kBash, "", 2, 10).addr = 0x1100;
    s.exit(0, t + 30, kBash, "", 1, 30).addr = 0x1000;
    Rec& back = s.exit(0, t + 40, kBash, "kfree", 1, 0);
    back.calltime = back.rettime + 5;
    t += 1000;
    // Return values (kept in every file; printed where the format has them).
    const uint64_t retvals[] = {0, 1, ~uint64_t{21}, ~uint64_t{4094}, ~uint64_t{4095}, 0xffff888012345678ull};
    for (uint64_t v : retvals) {
        s.leaf(1, t, kCc1, "ksys_read", 1, 400);
        s.recs.back().retval = v;
        s.entry(1, t + 500, kCc1, "vfs_read", 1);
        s.leaf(1, t + 600, kCc1, "rw_verify_area", 2, 20);
        s.exit(1, t + 700, kCc1, "vfs_read", 1, 200).retval = v;
        t += 1000;
    }
    if (retaddr) {
        Rec& a = s.entry(1, t, kCc1, "vfs_read", 1);
        a.kind = Kind::retaddr_entry;
        a.caller = "ksys_read";
        a.caller_off = 0x72;
        s.leaf(1, t + 10, kCc1, "rw_verify_area", 2, 20);
        s.recs.back().retval = 0;
        Rec& b = s.recs[s.recs.size() - 2];
        b.kind = Kind::retaddr_entry;
        b.caller = "vfs_read";
        b.caller_off = 0x1c;
        s.exit(1, t + 100, kCc1, "vfs_read", 1, 100);
        Rec& c = s.entry(1, t + 200, kCc1, "", 1);
        c.kind = Kind::retaddr_entry;
        c.addr = 0x2000;
        c.caller = "ksys_read";
        c.caller_off = 0x10;
        s.exit(1, t + 300, kCc1, "", 1, 100).addr = 0x2000;
        Rec& d = s.entry(1, t + 400, kCc1, "kfree", 1);
        d.kind = Kind::retaddr_entry;
        d.caller = "";  // a return address outside every symbol
        s.exit(1, t + 500, kCc1, "kfree", 1, 100);
        t += 1000;
    }
    // Entries that end a page with their exit opening the next one; the second next page lost
    // events before it. With two pages a chunk, the second break is at a chunk's end too.
    for (int i = 0; i < 3; ++i) {
        s.entry(0, t, kWorker, "tick_sched_timer", 0).page_break_after = true;
        s.exit(0, t + 70, kWorker, "tick_sched_timer", 0, 70).missed_before = i == 1;
        s.leaf(0, t + 100, kWorker, "hrtimer_interrupt", 0, 20);
        t += 1000;
    }
    // Fill one more page after the breaks so that chunks hold several.
    for (int i = 0; i < 40; ++i) s.leaf(0, t + i * 100, kWorker, "_raw_spin_lock", 1, 30 + i);
    return s;
}

// The idle task's exit of the same function comes next, but on the other CPU: trace-cmd 3.1.6
// prints one leaf with that exit, 3.3 and later do not. It ends the trace: what 3.1.6 prints after
// such a leaf depends on its heap (see tests/data/fgraph/README.md).
Story cross_cpu_story() {
    Story s(6000ull * 1000000000ull);
    s.leaf(0, 1000, kBash, "kfree", 1, 50);
    s.leaf(1, 1500, kCc1, "kmem_cache_alloc", 1, 50);
    s.entry(0, 2000, kIdle, "do_IRQ", 0);
    s.exit(1, 2050, kIdle, "do_IRQ", 0, 3000);
    s.exit(0, 2100, kIdle, "do_IRQ", 0, 100);
    return s;
}

// A leaf, then an entry with a leaf and an exit inside it, for the formats that do not read.
Story small_story(bool exits) {
    Story s(7000ull * 1000000000ull);
    s.entry(0, 1000, kBash, "kfree", 1);
    if (exits) s.exit(0, 1050, kBash, "kfree", 1, 50);
    s.entry(0, 2000, kBash, "vfs_read", 1);
    s.entry(0, 2100, kBash, "rw_verify_area", 2);
    if (exits) s.exit(0, 2150, kBash, "rw_verify_area", 2, 50);
    if (exits) s.exit(0, 2500, kBash, "vfs_read", 1, 500);
    return s;
}

// Writes into a record or page in the byte order of the flavour's kernel.
void put(std::vector<uint8_t>& v, size_t at, uint64_t x, uint32_t n, bool big_endian) {
    for (uint32_t i = 0; i < n; ++i)
        v[at + (big_endian ? n - 1 - i : i)] = static_cast<uint8_t>(x >> (8 * i));
}

// An event header word: type_len in the low 5 bits, or in the high 5 on big-endian kernels.
uint32_t event_header(uint32_t type_len, uint64_t delta, bool big_endian) {
    const uint32_t d = static_cast<uint32_t>(delta & ((1u << 27) - 1));
    return big_endian ? type_len << 27 | d : type_len | d << 5;
}

struct Ids {
    std::map<std::string, uint64_t> addr;
};

uint64_t address_of(const Ids& ids, const std::string& name, uint64_t fallback, uint32_t off = 0) {
    if (name.empty()) return fallback;
    return ids.addr.at(name) + off;
}

std::vector<uint8_t> payload(const Flavour& fl, const Rec& r, const Ids& ids) {
    const EventDef* ev = &fl.entry;
    if (r.kind == Kind::exit) ev = &fl.exit;
    if (r.kind == Kind::retaddr_entry) ev = &fl.extra.at(0);
    if (r.kind == Kind::function) ev = &fl.function;
    const EventDef irq = irq_handler_entry();
    if (r.kind == Kind::irq) ev = &irq;
    std::vector<uint8_t> p(ev->payload_size, 0);
    const bool be = fl.big_endian;
    put(p, 0, ev->id, 2, be);
    put(p, 4, static_cast<uint32_t>(r.pid), 4, be);
    auto set = [&](const char* name, uint64_t v) {
        if (const FieldDef* f = ev->field(name)) put(p, f->offset, v, f->size, be);
    };
    if (r.kind == Kind::irq) {
        const std::string name = "ttyS0";
        set("irq", static_cast<uint64_t>(r.irq));
        set("name", (static_cast<uint64_t>(name.size() + 1) << 16) | p.size());
        p.insert(p.end(), name.begin(), name.end());
        p.push_back(0);
        return p;
    }
    if (r.kind == Kind::function) {
        set("ip", address_of(ids, r.func, r.addr));
        set("parent_ip", address_of(ids, r.parent, 0));
        return p;
    }
    set("func", address_of(ids, r.func, r.addr));
    set("depth", r.depth);
    set("calltime", r.calltime);
    set("rettime", r.rettime);
    set("overrun", r.overrun);
    set("retval", r.retval);
    set("retaddr", address_of(ids, r.caller, 0x3000, r.caller_off));
    return p;
}

// The ring-buffer pages of one CPU: records packed in order (time extends for long gaps),
// a page closed early where a record asks for it, the missed-events flag where one asks for it.
std::vector<uint8_t> pages_of(const Flavour& fl, const std::vector<const Rec*>& recs, const Ids& ids) {
    const uint32_t page_size = 4096, hdr = 8 + fl.long_size;
    std::vector<uint8_t> out, page;
    size_t pos = 0;
    uint64_t prev = 0;
    bool missed = false;
    auto close = [&] {
        if (page.empty()) return;
        uint64_t commit = pos - hdr;
        if (missed) commit |= 1ull << 31;
        put(page, 8, commit, fl.long_size, fl.big_endian);
        out.insert(out.end(), page.begin(), page.end());
        page.clear();
    };
    for (const Rec* r : recs) {
        std::vector<uint8_t> p = payload(fl, *r, ids);
        p.resize((p.size() + 3) & ~size_t{3}, 0);
        const size_t len = p.size() <= 112 ? 4 + p.size() : 8 + p.size();
        if (!page.empty() && (pos + len + 8 > page_size || r->missed_before)) close();
        if (page.empty()) {
            page.assign(page_size, 0);
            put(page, 0, r->ts, 8, fl.big_endian);
            pos = hdr;
            prev = r->ts;
            missed = r->missed_before;
        }
        uint64_t delta = r->ts - prev;
        if (delta >= (1u << 27)) {  // time extend
            put(page, pos, event_header(30, delta, fl.big_endian), 4, fl.big_endian);
            put(page, pos + 4, delta >> 27, 4, fl.big_endian);
            pos += 8;
            delta = 0;
        }
        if (p.size() <= 112) {
            put(page, pos, event_header(static_cast<uint32_t>(p.size() / 4), delta, fl.big_endian), 4,
                fl.big_endian);
            pos += 4;
        } else {
            put(page, pos, event_header(0, delta, fl.big_endian), 4, fl.big_endian);
            put(page, pos + 4, p.size() + 4, 4, fl.big_endian);
            pos += 8;
        }
        std::memcpy(page.data() + pos, p.data(), p.size());
        pos += p.size();
        prev = r->ts;
        if (r->page_break_after) close();
    }
    close();
    return out;
}

int fail(const std::string& what) {
    std::fprintf(stderr, "make_fgraph_traces: %s\n", what.c_str());
    return 1;
}

int write_trace(const Flavour& fl, const Story& s, const std::string& path) {
    Ids ids;
    std::string kallsyms;
    const uint64_t base = fl.long_size == 4 ? 0xc1000000ull : 0xffffffff81000000ull;
    uint64_t a = base;
    for (const char* name : kSymbols) {
        ids.addr[name] = a;
        char line[128];
        std::snprintf(line, sizeof line, fl.long_size == 4 ? "%08llx T %s\n" : "%016llx T %s\n",
                      static_cast<unsigned long long>(a), name);
        kallsyms += line;
        a += 0x200;
    }
    io::TraceMetadata meta;
    meta.header_page = header_page(fl.long_size);
    meta.header_event = header_event();
    meta.ftrace_formats = {fl.function.text()};
    if (fl.has_exit) meta.ftrace_formats.push_back(fl.exit.text());
    meta.ftrace_formats.push_back(fl.entry.text());
    for (const auto& e : fl.extra) meta.ftrace_formats.push_back(e.text());
    meta.event_systems.push_back({"irq", {irq_handler_entry().text()}});
    meta.kallsyms = kallsyms;
    meta.saved_cmdlines = "35 kworker/u2:2\n999 other\n1234 bash\n2345 cc1\n";
    meta.cpu_count = 2;
    meta.options.trace_clock = "[local] global counter uptime perf mono mono_raw boot\n";
    meta.options.uname = "Linux fgraph " + fl.kernel;

    io::WriterConfig cfg;
    cfg.long_size = fl.long_size;
    cfg.big_endian = fl.big_endian;
    cfg.page_size = 4096;
    cfg.chunk_pages = 2;
    // 32-bit kernels' files as the trace-cmd of their time wrote them: version 6.
    cfg.file_version = fl.long_size == 4 ? 6 : 7;
    auto w =
        io::TraceDatWriter::create(path, cfg, std::move(meta), {io::BufferSpec{"", "local", 4096, {0, 1}}});
    if (!w) return fail(w.error().to_string());
    for (int cpu = 0; cpu < 2; ++cpu) {
        std::vector<const Rec*> recs;
        for (const Rec& r : s.recs)
            if (r.cpu == cpu) recs.push_back(&r);
        for (size_t i = 1; i < recs.size(); ++i)
            if (recs[i]->ts < recs[i - 1]->ts)
                return fail("CPU " + std::to_string(cpu) + " goes back in time");
        const std::vector<uint8_t> pages = pages_of(fl, recs, ids);
        if (auto st = (*w)->begin_cpu(); !st) return fail(st.error().to_string());
        if (auto st = (*w)->write_pages(pages); !st) return fail(st.error().to_string());
        if (auto st = (*w)->end_cpu(); !st) return fail(st.error().to_string());
    }
    if (auto st = (*w)->finish(); !st) return fail(st.error().to_string());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) return fail("usage: make_fgraph_traces OUTDIR");
    const std::string dir = argv[1];
    std::vector<Flavour> all = flavours();
    for (Flavour& fl : big_endian_flavours()) all.push_back(std::move(fl));
    for (const Flavour& fl : all) {
        const std::string path = dir + "/fgraph-" + fl.name + ".dat";
        if (int rc = write_trace(fl, story(fl), path)) return rc;
        std::printf("%s\n", path.c_str());
    }
    const std::pair<std::string, int> more[] = {
        {"fgraph-cross-cpu.dat",
         write_trace(flavours().back(), cross_cpu_story(), dir + "/fgraph-cross-cpu.dat")},
        {"fgraph-broken.dat", write_trace(broken(), small_story(true), dir + "/fgraph-broken.dat")},
        {"fgraph-no-exit.dat", write_trace(no_exit(), small_story(false), dir + "/fgraph-no-exit.dat")}};
    for (const auto& [name, rc] : more) {
        if (rc) return rc;
        std::printf("%s/%s\n", dir.c_str(), name.c_str());
    }
    return 0;
}
