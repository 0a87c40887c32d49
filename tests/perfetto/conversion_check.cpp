// The Perfetto round-trip check (conversion_check.hpp).
#include "tests/perfetto/conversion_check.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

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

namespace ringscope::perfetto::convert_check {

using test::find_field;
using test::ProtoField;
using test::read_message;

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

}  // namespace ringscope::perfetto::convert_check
