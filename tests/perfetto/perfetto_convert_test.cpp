// `ringscope convert` on the committed traces (and, when present, ../shared's external traces):
// the output decoded by tests/perfetto/proto_reader.hpp holds every event report prints, once,
// with its time, CPU, pid and every field's value; the drops report prints are its ftrace stats.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include <ringscope/resolver.hpp>

#include "framework/engine/print_dispatch.hpp"
#include "framework/engine/trace_set.hpp"
#include "framework/perfetto/ftrace_schema.hpp"
#include "tests/perfetto/proto_reader.hpp"
#include "tests/support/shell_command.hpp"

namespace fs = std::filesystem;

namespace ringscope::perfetto {
namespace {

using test::find_field;
using test::ProtoField;
using test::read_message;

struct Ev {
    uint32_t machine = 0, cpu = 0, pid = 0;
    uint64_t ts = 0, flags = 0;
    std::string name;
    std::map<std::string, std::string> fields;  // "s:text" or "u:<64-bit pattern>"
};

struct Decoded {
    std::vector<Ev> events;
    size_t symbol_fields = 0;                                      // generic NAME_symbol fields checked
    std::map<uint32_t, std::map<uint64_t, uint64_t>> overrun_end;  // machine -> cpu -> count
    std::map<uint32_t, std::map<int64_t, std::string>> threads;    // machine -> tid -> name
    std::map<uint32_t, std::map<int64_t, int64_t>> tgids;          // machine -> tid -> tgid
    std::map<uint32_t, std::map<int64_t, std::string>> processes;  // machine -> pid -> cmdline
    std::map<uint32_t, std::map<int64_t, int64_t>> ppids;          // machine -> pid -> parent's pid
    size_t lost_bundles = 0;
};

bool operator==(const Ev& a, const Ev& b) {
    return std::tie(a.machine, a.cpu, a.pid, a.ts, a.flags, a.name, a.fields) ==
           std::tie(b.machine, b.cpu, b.pid, b.ts, b.flags, b.name, b.fields);
}

std::vector<Ev> sorted(std::vector<Ev> v) {
    std::stable_sort(v.begin(), v.end(), [](const Ev& a, const Ev& b) {
        return std::tie(a.machine, a.cpu, a.ts) < std::tie(b.machine, b.cpu, b.ts);
    });
    return v;
}

std::string u(uint64_t v) {
    return "u:" + std::to_string(v);
}

void decode_event(std::string_view bytes, uint32_t machine, uint32_t cpu,
                  const std::map<uint64_t, std::string>& symbols, Decoded& d) {
    Ev e;
    e.machine = machine;
    e.cpu = cpu;
    for (const ProtoField& f : read_message(bytes)) {
        if (f.number == field::kEventTimestamp) {
            e.ts = f.value;
        } else if (f.number == field::kEventPid) {
            e.pid = static_cast<uint32_t>(f.value);
        } else if (f.number == field::kEventCommonFlags) {
            e.flags = f.value;
        } else if (f.number == field::kEventGeneric) {
            auto g = read_message(f.bytes);
            e.name = std::string(find_field(g, field::kGenericEventName).value().bytes);
            for (const ProtoField& gf : g) {
                if (gf.number != field::kGenericField) continue;
                auto m = read_message(gf.bytes);
                ASSERT_EQ(m.size(), 2u) << "a generic field holds a name and one value";
                const std::string name(find_field(m, field::kGenericFieldName).value().bytes);
                const ProtoField& v = m[1];
                ASSERT_TRUE(v.number == field::kGenericFieldStr || v.number == field::kGenericFieldInt ||
                            v.number == field::kGenericFieldUint);
                e.fields[name] =
                    v.number == field::kGenericFieldStr ? "s:" + std::string(v.bytes) : u(v.value);
            }
        } else {
            const TypedEvent* te = nullptr;
            for (const auto& t : typed_events())
                if (t.oneof_field == f.number) te = &t;
            ASSERT_NE(te, nullptr) << "FtraceEvent field " << f.number;
            ASSERT_EQ(f.wire, 2u);
            e.name = std::string(te->name);
            for (const ProtoField& tf : read_message(f.bytes)) {
                const TypedField* slot = nullptr;
                for (const auto& s : te->fields)
                    if (s.number == tf.number) slot = &s;
                ASSERT_NE(slot, nullptr) << e.name << " field " << tf.number;
                const std::string name(slot->name);
                if (slot->type == ProtoType::string) {
                    e.fields[name] = "s:" + std::string(tf.bytes);
                } else if (slot->type == ProtoType::ksym) {
                    auto it = symbols.find(tf.value);
                    ASSERT_NE(it, symbols.end())
                        << "kernel symbol iid " << tf.value << " used before it is interned";
                    e.fields[name] = "s:" + it->second;
                } else {
                    e.fields[name] = u(tf.value);
                }
            }
        }
    }
    d.events.push_back(std::move(e));
}

Decoded decode_trace(const std::string& bytes) {
    Decoded d;
    std::map<uint64_t, std::map<uint64_t, std::string>> interned;  // sequence -> iid -> name
    for (const ProtoField& p : read_message(bytes)) {
        EXPECT_EQ(p.number, field::kTracePacket);
        auto packet = read_message(p.bytes);
        uint64_t seq = 0;
        uint32_t machine = 0;
        for (const ProtoField& f : packet) {
            if (f.number == field::kPacketSequenceId) seq = f.value;
            if (f.number == field::kPacketMachineId) machine = static_cast<uint32_t>(f.value);
        }
        EXPECT_NE(seq, 0u) << "every packet names its sequence";
        // Interned data first: a packet may use what it interns.
        for (const ProtoField& f : packet) {
            if (f.number != field::kPacketInternedData) continue;
            for (const ProtoField& k : read_message(f.bytes)) {
                if (k.number != field::kInternedKernelSymbols) continue;
                auto m = read_message(k.bytes);
                interned[seq][find_field(m, field::kInternedStringIid).value().value] =
                    std::string(find_field(m, field::kInternedStringStr).value().bytes);
            }
        }
        for (const ProtoField& f : packet) {
            if (f.number == field::kPacketFtraceEvents) {
                auto bundle = read_message(f.bytes);
                const uint32_t cpu =
                    static_cast<uint32_t>(find_field(bundle, field::kBundleCpu).value().value);
                if (auto lost = find_field(bundle, field::kBundleLostEvents); lost && lost->value)
                    ++d.lost_bundles;
                for (const ProtoField& ev : bundle)
                    if (ev.number == field::kBundleEvent)
                        decode_event(ev.bytes, machine, cpu, interned[seq], d);
            } else if (f.number == field::kPacketProcessTree) {
                for (const ProtoField& t : read_message(f.bytes)) {
                    auto m = read_message(t.bytes);
                    if (t.number == field::kTreeProcesses) {
                        auto cmdline = find_field(m, field::kProcessCmdline);
                        const auto pid =
                            static_cast<int64_t>(find_field(m, field::kProcessPid).value().value);
                        d.processes[machine][pid] = cmdline ? std::string(cmdline->bytes) : std::string();
                        if (auto ppid = find_field(m, field::kProcessPpid))
                            d.ppids[machine][pid] = static_cast<int32_t>(static_cast<uint32_t>(ppid->value));
                        continue;
                    }
                    if (t.number != field::kTreeThreads) continue;
                    const auto tid = static_cast<int64_t>(find_field(m, field::kThreadTid).value().value);
                    EXPECT_FALSE(d.tgids[machine].count(tid)) << "thread " << tid << " listed twice";
                    if (auto name = find_field(m, field::kThreadName))
                        d.threads[machine][tid] = std::string(name->bytes);
                    d.tgids[machine][tid] = static_cast<int32_t>(
                        static_cast<uint32_t>(find_field(m, field::kThreadTgid).value().value));
                }
            } else if (f.number == field::kPacketFtraceStats) {
                auto s = read_message(f.bytes);
                if (find_field(s, field::kStatsPhase).value().value != field::kPhaseEndOfTrace) continue;
                for (const ProtoField& c : s) {
                    if (c.number != field::kStatsCpuStats) continue;
                    auto m = read_message(c.bytes);
                    d.overrun_end[machine][find_field(m, field::kCpuStatsCpu).value().value] =
                        find_field(m, field::kCpuStatsOverrun).value().value;
                }
            }
        }
    }
    return d;
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string quoted(const std::vector<std::string>& files) {
    std::string s;
    for (const auto& f : files) s += " '" + f + "'";
    return s;
}

// The events of the files as report reads them, with the values the test reads from the records.
std::vector<Ev> expected_events(engine::TraceSet& set) {
    std::vector<Ev> out;
    std::map<const engine::TraceFile*, std::unique_ptr<engine::PrintDispatch>> printers;
    engine::EventMerger merger;
    EXPECT_TRUE(set.build_merger(set.buffer_order(), {}, merger));
    const engine::Record* rec = nullptr;
    engine::MergeSource* src = nullptr;
    while (merger.next(rec, src)) {
        const EventType* type = src->file->type_of(rec->data, rec->size);
        if (!type) continue;
        Event ev(type, src->file, {rec->data, rec->size}, rec->ts, rec->cpu, rec->missed, rec->trailing);
        Ev e;
        e.machine = static_cast<uint32_t>(src->file_index);
        e.cpu = static_cast<uint32_t>(rec->cpu);
        e.ts = rec->ts;
        e.pid = static_cast<uint32_t>(ev.pid());
        if (auto f = ev.integer("common_flags")) e.flags = static_cast<uint64_t>(*f);
        e.name = type->name;
        if (type->system == "ftrace" && type->name == "bprint") {
            // trace_printk: Perfetto's print event with the text report prints after "IP: ".
            auto& printer = printers[src->file];
            if (!printer)
                printer =
                    std::make_unique<engine::PrintDispatch>(*src->file, std::span<EventHandler* const>{});
            TextBuffer text;
            printer->print_info(ev, text);
            std::string t(text.view());
            t.erase(0, t.find(": ") == std::string::npos ? 0 : t.find(": ") + 2);
            e.name = "print";
            e.fields["ip"] = u(static_cast<uint64_t>(*ev.integer("ip")));
            e.fields["buf"] = "s:" + t;
            out.push_back(std::move(e));
            continue;
        }
        const auto payload = ev.payload();
        for (const FieldInfo& f : type->fields) {
            const FieldHandle h{f.offset, f.size, f.flags, true};
            const bool chars = (f.flags & kFieldString) && f.type.find("char") != std::string::npos;
            const bool open_end = (f.flags & kFieldArray) && f.size == 0;
            std::span<const uint8_t> b =
                open_end ? payload.subspan(std::min<size_t>(f.offset, payload.size())) : ev.bytes(h);
            if (chars) {
                const char* s = reinterpret_cast<const char*>(b.data());
                e.fields[f.name] = "s:" + std::string(s, b.empty() ? 0 : strnlen(s, b.size()));
            } else if (!(f.flags & (kFieldArray | kFieldDynamic | kFieldRelLoc)) &&
                       (f.size == 1 || f.size == 2 || f.size == 4 || f.size == 8)) {
                e.fields[f.name] = u(static_cast<uint64_t>(ev.integer(h)));
            } else {
                const uint32_t es =
                    f.elem_size == 1 || f.elem_size == 2 || f.elem_size == 4 || f.elem_size == 8 ? f.elem_size
                                                                                                 : 1;
                for (size_t i = 0; i + es <= b.size(); i += es) {
                    uint64_t v = 0;
                    for (uint32_t k = 0; k < es; ++k)
                        v |= static_cast<uint64_t>(b[i + k])
                             << (8 * (ev.context().big_endian() ? es - 1 - k : k));
                    if (f.is_signed() && es < 8) {
                        const unsigned sh = 64 - 8 * es;
                        v = static_cast<uint64_t>(static_cast<int64_t>(v << sh) >> sh);
                    }
                    e.fields[f.name + "[" + std::to_string(i / es) + "]"] = u(v);
                }
            }
        }
        out.push_back(std::move(e));
    }
    EXPECT_TRUE(merger.status()) << merger.status().error().to_string();
    return out;
}

struct ReportCounts {
    std::map<std::string, uint64_t> by_name;
    std::map<uint64_t, uint64_t> dropped;  // CPU -> events report says were dropped
};

ReportCounts report_counts(const std::vector<std::string>& files) {
    const std::string bin = std::string(RINGSCOPE_BINARY_DIR) + "/ringscope";
    // With -i: under --compat 3.1 (the tests' default) report reads one file after the options.
    std::string inputs;
    for (const auto& f : files) inputs += " -i '" + f + "'";
    auto r = test::run_shell("'" + bin + "' report -N" + inputs + " 2>/dev/null");
    EXPECT_EQ(r.status, 0);
    ReportCounts c;
    static const std::regex line(R"(\[(\d+)\]\s+\d+(\.\d+)?: ([^ :]+):)");
    static const std::regex drop(R"(CPU:(\d+) \[(\d+) EVENTS DROPPED\])");
    std::istringstream in(r.out);
    std::string s;
    std::smatch m;
    while (std::getline(in, s)) {
        if (std::regex_search(s, m, drop))
            c.dropped[std::stoull(m[1])] += std::stoull(m[2]);
        else if (std::regex_search(s, m, line))
            ++c.by_name[m[3] == "bprint" ? "print" : std::string(m[3])];  // Perfetto's print holds both
    }
    return c;
}

// Converts FILES and checks the output against them. Returns the decoded trace.
Decoded check_conversion(const std::vector<std::string>& files) {
    const std::string bin = std::string(RINGSCOPE_BINARY_DIR) + "/ringscope";
    const fs::path out =
        fs::temp_directory_path() / ("ringscope-perfetto-" + std::to_string(::getpid()) + "-" +
                                     fs::path(files.front()).stem().string() + ".perfetto-trace");
    auto r = test::run_shell("'" + bin + "' convert -q" + quoted(files) + " -o '" + out.string() + "' 2>&1");
    EXPECT_EQ(r.status, 0) << r.out;
    Decoded d;
    try {
        d = decode_trace(read_file(out.string()));
    } catch (const std::exception& e) {
        ADD_FAILURE() << files.front() << ": the output does not decode: " << e.what();
    }
    fs::remove(out);

    // Every event report prints, once per name.
    const ReportCounts rc = report_counts(files);
    std::map<std::string, uint64_t> decoded_counts;
    for (const auto& e : d.events) ++decoded_counts[e.name];
    EXPECT_EQ(decoded_counts, rc.by_name) << files.front();

    // Every event with its values.
    engine::TraceSet set;
    for (const auto& f : files) EXPECT_TRUE(set.add_file(f, engine::OpenOptions{}));
    set.pair_guests();
    std::vector<Ev> want = expected_events(set);
    EXPECT_EQ(d.events.size(), want.size()) << files.front();
    auto key = [](const Ev& a, const Ev& b) {
        return std::tie(a.machine, a.cpu, a.ts) < std::tie(b.machine, b.cpu, b.ts);
    };
    std::vector<Ev> got = d.events;
    std::stable_sort(got.begin(), got.end(), key);
    std::stable_sort(want.begin(), want.end(), key);
    size_t& symbol_fields = d.symbol_fields;
    auto symbol = [&](uint32_t machine, const std::string& value) {
        const uint64_t addr = std::stoull(value.substr(2));
        std::string sym;
        if (auto s = set.file(machine).resolvers().lookup(kKernelDomain, addr))
            sym = ResolverService::format(*s, addr);
        if (sym.empty()) {
            char b[24];
            std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(addr));
            sym = b;
        }
        return "s:" + sym;
    };
    size_t mismatches = 0;
    for (size_t i = 0; i < std::min(got.size(), want.size()) && mismatches < 5; ++i) {
        Ev g = got[i];
        Ev w = want[i];
        // Typed kernel-function fields carry the function's name (InternedData.kernel_symbols).
        for (auto& [name, value] : w.fields) {
            auto it = g.fields.find(name);
            if (it == g.fields.end() || it->second.rfind("s:", 0) != 0 || value.rfind("u:", 0) != 0) continue;
            value = symbol(w.machine, value);
        }
        // Generic events name the functions their print fmt prints with %ps: NAME_symbol.
        for (auto it = g.fields.begin(); it != g.fields.end();) {
            const std::string& k = it->first;
            const size_t n = k.size();
            auto base = n > 7 && k.compare(n - 7, 7, "_symbol") == 0 ? w.fields.find(k.substr(0, n - 7))
                                                                     : w.fields.end();
            if (base == w.fields.end() || w.fields.count(k) || base->second.rfind("u:", 0) != 0) {
                ++it;
                continue;
            }
            EXPECT_EQ(it->second, symbol(w.machine, base->second)) << k;
            ++symbol_fields;
            it = g.fields.erase(it);
        }
        const bool same = g.machine == w.machine && g.cpu == w.cpu && g.ts == w.ts && g.pid == w.pid &&
                          g.flags == w.flags && g.name == w.name && g.fields == w.fields;
        if (!same) {
            ++mismatches;
            std::string gf, wf;
            for (const auto& [k, v] : g.fields) gf += " " + k + "=" + v;
            for (const auto& [k, v] : w.fields) wf += " " + k + "=" + v;
            ADD_FAILURE() << files.front() << " event " << i << ": got " << g.name << " cpu " << g.cpu
                          << " ts " << g.ts << " pid " << g.pid << " flags " << g.flags << gf << "\n  want "
                          << w.name << " cpu " << w.cpu << " ts " << w.ts << " pid " << w.pid << " flags "
                          << w.flags << wf;
        }
    }

    // Drops: what report prints per CPU is the END_OF_TRACE overrun of the first input.
    if (files.size() == 1) {
        for (const auto& [cpu, n] : d.overrun_end[0]) {
            auto it = rc.dropped.find(cpu);
            EXPECT_EQ(n, it == rc.dropped.end() ? 0u : it->second) << files.front() << " CPU " << cpu;
        }
        for (const auto& [cpu, n] : rc.dropped) EXPECT_TRUE(d.overrun_end[0].count(cpu)) << cpu;
    }
    // Task names: the files' saved cmdlines.
    for (size_t i = 0; i < set.size(); ++i) {
        size_t tasks = 0;
        set.file(i).comms().for_each([&](int pid, std::string_view comm) {
            if (pid <= 0) return;
            ++tasks;
            EXPECT_EQ(d.threads[static_cast<uint32_t>(i)][pid], comm) << files[i] << " pid " << pid;
        });
        EXPECT_EQ(d.threads[static_cast<uint32_t>(i)].size(), tasks) << files[i];
    }
    return d;
}

std::string data(const std::string& rel) {
    return std::string(RINGSCOPE_TEST_DATA_DIR) + "/" + rel;
}

// Every committed trace.dat (25: traces/, fgraph/ with big-endian ppc and i386 ones, io/, kvm*/).
TEST(PerfettoConvert, CommittedTracesRoundTrip) {
    std::vector<std::string> files;
    for (const auto& e : fs::recursive_directory_iterator(RINGSCOPE_TEST_DATA_DIR))
        if (e.path().extension() == ".dat") files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    EXPECT_GE(files.size(), 25u);
    for (const auto& f : files) {
        SCOPED_TRACE(f);
        Decoded d = check_conversion({f});
        EXPECT_FALSE(d.events.empty());
    }
}

TEST(PerfettoConvert, TypedEventsWhereTheKernelsFormatFits) {
    Decoded d = check_conversion({data("traces/full.dat")});
    std::map<std::string, size_t> names;
    for (const auto& e : d.events) ++names[e.name];
    // full.dat's 6.18 formats: sched_switch and sched_waking fit their Perfetto messages.
    engine::TraceSet set;
    ASSERT_TRUE(set.add_file(data("traces/full.dat"), engine::OpenOptions{}));
    size_t typed = 0;
    for (const EventType* t : set.file(0).types())
        if (names.count(t->name) && find_typed_event(t->system, t->name)) ++typed;
    EXPECT_GT(typed, 0u);
    EXPECT_GT(names["sched_switch"], 0u);
}

TEST(PerfettoConvert, GenericFunctionFieldsAreNamed) {
    // full.dat's timer events print their function with %ps.
    Decoded d = check_conversion({data("traces/full.dat")});
    EXPECT_GT(d.symbol_fields, 0u);
}

// threads.dat (tests/data/view/make-threads.sh): every task of its workload wrote "tgid-check tid=T
// tgid=G" to trace_marker. The ProcessTree must put each thread in that process, worked out from
// task_newtask and sched_process_exec, never from those lines; a process with threads is named.
// Report's text of threads.dat, and RE's matches in it as a map: group KEY -> group VALUE.
std::string threads_report() {
    const auto report = test::run_shell("RINGSCOPE_COMPAT=3.1 '" + std::string(RINGSCOPE_BINARY_DIR) +
                                        "/ringscope' report '" + data("view/threads.dat") + "'");
    EXPECT_EQ(report.status, 0);
    return report.out;
}
std::map<int64_t, int64_t> pairs(const std::string& text, const std::regex& re, int key = 1, int value = 2) {
    std::map<int64_t, int64_t> out;
    for (std::sregex_iterator it(text.begin(), text.end(), re), end; it != end; ++it)
        out[std::stoll((*it)[key])] = std::stoll((*it)[value]);
    return out;
}
const std::regex kTgidCheck(R"(tgid-check tid=(\d+) tgid=(\d+))");

TEST(PerfettoConvert, ThreadsAreInTheProcessesTheyWrote) {
    const std::string dat = data("view/threads.dat");
    std::map<int64_t, int64_t> written = pairs(threads_report(), kTgidCheck);
    ASSERT_EQ(written.size(), 17u);

    Decoded d = check_conversion({dat});
    size_t threaded = 0;
    for (const auto& [tid, tgid] : written) {
        ASSERT_TRUE(d.tgids[0].count(tid)) << "thread " << tid << " is in the ProcessTree";
        EXPECT_EQ(d.tgids[0][tid], tgid) << "thread " << tid;
        if (tid != tgid) {
            ++threaded;
            EXPECT_TRUE(d.processes[0].count(tgid)) << "process " << tgid << " is listed";
            EXPECT_FALSE(d.processes[0][tgid].empty()) << "process " << tgid << " has its name";
        }
    }
    EXPECT_EQ(threaded, 12u);
}

// threads.dat again: each process made in the trace names its parent process (ProcessTree's
// ppid), the process of the task whose task_newtask made it (a process forked by a thread has the
// thread's process as parent). Expected from report's text: the creator of each task_newtask line
// and the tgids the tasks wrote themselves.
TEST(PerfettoConvert, ProcessesHaveTheirParents) {
    const std::string dat = data("view/threads.dat");
    const std::string report = threads_report();
    std::map<int64_t, int64_t> written = pairs(report, kTgidCheck);
    // "NAME-CREATOR [cpu] ts: task_newtask: pid=CHILD": child -> creator.
    std::map<int64_t, int64_t> creator =
        pairs(report, std::regex(R"(-(\d+) +\[\d+\] [0-9.]+: task_newtask: +pid=(\d+) )"), 2, 1);
    std::map<int64_t, int64_t> want;  // process -> parent process
    for (const auto& [child, by] : creator)
        if (written.count(child) && written[child] == child && written.count(by)) want[child] = written[by];
    ASSERT_EQ(want.size(), 4u) << "proc1-3 made by the main thread, proc4 by a thread of proc3";

    Decoded d = check_conversion({dat});
    for (const auto& [pid, ppid] : want) {
        EXPECT_TRUE(d.processes[0].count(pid)) << "process " << pid << " is listed";
        EXPECT_EQ(d.ppids[0].count(pid) ? d.ppids[0][pid] : -1, ppid) << "process " << pid;
    }
    // Threads are not processes, and a parent from before the trace is not made up.
    for (const auto& [pid, ppid] : d.ppids[0]) EXPECT_TRUE(want.count(pid)) << pid << " has ppid " << ppid;
}

TEST(PerfettoConvert, DroppedEventsAreFtraceStats) {
    Decoded d = check_conversion({data("traces/dropped.dat")});
    uint64_t total = 0;
    for (const auto& [cpu, n] : d.overrun_end[0]) total += n;
    EXPECT_GT(total, 0u);
    EXPECT_GT(d.lost_bundles, 0u);
}

TEST(PerfettoConvert, HostAndGuestAreMachinesOfTheirOwn) {
    Decoded d = check_conversion({data("kvm-agent/host.dat"), data("kvm-agent/host-vm2.dat")});
    std::set<uint32_t> machines;
    for (const auto& e : d.events) machines.insert(e.machine);
    EXPECT_EQ(machines, (std::set<uint32_t>{0, 1}));
}

TEST(PerfettoConvert, ExternalTracesRoundTrip) {
    const fs::path dir = fs::path(RINGSCOPE_SHARED_DIR) / "conformance" / "external-traces";
    if (!fs::is_directory(dir)) GTEST_SKIP() << dir << " is absent";
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".dat") files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    ASSERT_FALSE(files.empty());
    for (const auto& f : files) {
        SCOPED_TRACE(f);
        check_conversion({f});
    }
}

// `ringscope run`'s perfetto-trace output: the run's events, as convert writes them.
TEST(PerfettoConvert, RunOutputHoldsEveryEvent) {
    const std::string bin = std::string(RINGSCOPE_BINARY_DIR) + "/ringscope";
    const fs::path dir = fs::temp_directory_path() / ("ringscope-perfetto-run-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const std::string basic = data("traces/basic.dat");
    std::ofstream(dir / "run.yaml") << "inputs: ['" << basic << "']\noutputs: {dir: '" << dir.string()
                                    << "', perfetto-trace: t.perfetto-trace}\n";
    auto r = test::run_shell("'" + bin + "' run --quiet '" + (dir / "run.yaml").string() + "' 2>&1");
    ASSERT_EQ(r.status, 0) << r.out;
    Decoded d = decode_trace(read_file((dir / "t.perfetto-trace").string()));
    std::map<std::string, uint64_t> counts;
    for (const auto& e : d.events) ++counts[e.name];
    EXPECT_EQ(counts, report_counts({basic}).by_name);
    // The same events as convert writes, on one thread or two.
    for (const char* jobs : {"1", "2"}) {
        auto c = test::run_shell("'" + bin + "' convert -q -j " + jobs + " '" + basic + "' -o '" +
                                 (dir / "c.perfetto-trace").string() + "'");
        ASSERT_EQ(c.status, 0);
        Decoded dc = decode_trace(read_file((dir / "c.perfetto-trace").string()));
        EXPECT_TRUE(sorted(dc.events) == sorted(d.events)) << "-j " << jobs;
        EXPECT_EQ(dc.threads, d.threads);
        EXPECT_EQ(dc.overrun_end, d.overrun_end);
    }
    fs::remove_all(dir);
}

// The output decoded by protoc (protobuf-compiler) with tests/data/perfetto/trace_subset.proto,
// Perfetto's own messages and numbers: it parses, every field is one Perfetto declares, and the
// events per name are report's.
TEST(PerfettoConvert, ProtocDecodesItWithPerfettosSchema) {
    if (test::run_shell("protoc --version >/dev/null 2>&1").status != 0)
        GTEST_SKIP() << "protoc (protobuf-compiler) is not installed";
    const std::string bin = std::string(RINGSCOPE_BINARY_DIR) + "/ringscope";
    const fs::path dir =
        fs::temp_directory_path() / ("ringscope-perfetto-protoc-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const std::string proto_dir = data("perfetto");
    for (const std::vector<std::string>& files :
         {std::vector<std::string>{data("traces/full.dat")},
          {data("traces/function.dat")},
          {data("traces/dropped.dat")},
          {data("kvm/kvm-extra.dat")},
          {data("kvm-agent/host.dat"), data("kvm-agent/host-vm2.dat")}}) {
        SCOPED_TRACE(files.front());
        const std::string out = (dir / "t.perfetto-trace").string();
        ASSERT_EQ(test::run_shell("'" + bin + "' convert -q" + quoted(files) + " -o '" + out + "'").status,
                  0);
        auto r = test::run_shell("protoc --decode=perfetto.protos.Trace --proto_path='" + proto_dir +
                                 "' trace_subset.proto < '" + out + "' 2>&1");
        ASSERT_EQ(r.status, 0) << r.out.substr(0, 2000);
        std::map<std::string, uint64_t> counts;
        static const std::regex oneof(R"re(^      (\w+) \{$)re"),
            generic_name(R"re(^        event_name: "(\w+)"$)re"), unknown(R"re(^\s*[0-9]+[: ])re");
        std::istringstream in(r.out);
        std::string line, pending;
        std::smatch m;
        size_t unknown_fields = 0;
        while (std::getline(in, line)) {
            if (std::regex_search(line, unknown)) ++unknown_fields;
            if (std::regex_match(line, m, oneof)) {
                if (m[1] == "generic")
                    pending = "generic";
                else
                    ++counts[m[1]];
            } else if (!pending.empty() && std::regex_match(line, m, generic_name)) {
                ++counts[m[1]];
                pending.clear();
            }
        }
        EXPECT_EQ(unknown_fields, 0u) << "fields Perfetto does not declare";
        EXPECT_EQ(counts, report_counts(files).by_name);
    }
    fs::remove_all(dir);
}

TEST(PerfettoConvert, BadInputIsOneLineAndNoOutput) {
    const std::string bin = std::string(RINGSCOPE_BINARY_DIR) + "/ringscope";
    const fs::path dir = fs::temp_directory_path() / ("ringscope-perfetto-bad-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    // A trace cut in the middle of its CPU data.
    const std::string whole = read_file(data("traces/basic.dat"));
    const fs::path cut = dir / "cut.dat";
    std::ofstream(cut, std::ios::binary)
        .write(whole.data(), static_cast<std::streamsize>(whole.size() * 2 / 3));
    const fs::path out = dir / "out.perfetto-trace";
    auto r = test::run_shell("'" + bin + "' convert '" + cut.string() + "' -o '" + out.string() + "' 2>&1");
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
    EXPECT_NE(r.out.find(cut.string()), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(out));
    r = test::run_shell("'" + bin + "' convert '" + data("traces/basic.dat") + "' 2>&1");
    EXPECT_EQ(r.status, 2) << r.out;
    fs::remove_all(dir);
}

}  // namespace
}  // namespace ringscope::perfetto
