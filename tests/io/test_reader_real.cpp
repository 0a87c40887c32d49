// TraceDatReader on real trace-cmd files, checked against `trace-cmd dump` outputs committed next
// to them (tests/data/kvm-agent/*.dump-*, tests/data/io/*.dump-*) and record counts from
// libtracecmd (counts.txt) and `trace-cmd report`.
#include "io_test_util.hpp"

#include <regex>

using namespace ringscope;
using namespace ringscope::io;
using iotest::data;

namespace {

TraceDatReader open_ok(const std::string& path) {
    auto r = TraceDatReader::open(path);
    EXPECT_TRUE(r) << (r ? "" : r.error().to_string());
    if (!r) std::abort();
    return *r;
}

// "[Section 0 @ 913077: "options", flags 0x0, 263 bytes]" lines of `trace-cmd dump --summary/--options`.
std::vector<SectionInfo> dump_sections(const std::string& text) {
    std::vector<SectionInfo> out;
    std::regex re(R"re(\[Section (\d+) @ (\d+): "([^"]*)", flags 0x([0-9a-f]+), (\d+) bytes\])re");
    for (std::sregex_iterator it(text.begin(), text.end(), re), end; it != end; ++it) {
        SectionInfo s;
        s.id = static_cast<uint16_t>(std::stoul((*it)[1]));
        s.offset = std::stoull((*it)[2]);
        s.description = (*it)[3];
        s.flags = static_cast<uint16_t>(std::stoul((*it)[4], nullptr, 16));
        s.size = std::stoull((*it)[5]);
        out.push_back(s);
    }
    return out;
}

// The summary's "[Kallsyms, 4409818 bytes]" style numbers.
uint64_t summary_number(const std::string& text, const std::string& label) {
    std::regex re("\\[" + label + ", (\\d+) (bytes|systems|events)\\]");
    std::smatch m;
    EXPECT_TRUE(std::regex_search(text, m, re)) << label;
    return m.empty() ? 0 : std::stoull(m[1]);
}

// "   0 917504	31030	[id, data offset and size]" lines of `trace-cmd dump --flyrecord`, per buffer in
// order.
std::vector<std::vector<CpuDataInfo>> dump_flyrecord(const std::string& text) {
    std::vector<std::vector<CpuDataInfo>> out;
    std::istringstream in(text);
    std::string line;
    std::regex cpu_re(R"(^\s+(\d+) (\d+)\s+(\d+)\s+\[id, data offset and size\])");
    std::regex v6_re(R"(^\s+(\d+)\s+(\d+)\s+\[offset, size of cpu (\d+)\])");
    while (std::getline(in, line)) {
        std::smatch m;
        if (line.find("[Option BUFFER,") != std::string::npos ||
            line.find("[Flyrecord tracing data]") != std::string::npos) {
            out.emplace_back();
        } else if (std::regex_search(line, m, cpu_re) && !out.empty()) {
            out.back().push_back(
                {static_cast<uint32_t>(std::stoul(m[1])), std::stoull(m[2]), std::stoull(m[3])});
        } else if (std::regex_search(line, m, v6_re) && !out.empty()) {
            out.back().push_back(
                {static_cast<uint32_t>(std::stoul(m[3])), std::stoull(m[1]), std::stoull(m[2])});
        }
    }
    std::erase_if(out, [](const auto& g) { return g.empty(); });
    return out;
}

void expect_sections_match_dump(const TraceDatReader& r, const std::string& dump) {
    auto want = dump_sections(dump);
    ASSERT_FALSE(want.empty());
    for (const auto& w : want) {
        bool found = false;
        for (const auto& s : r.sections()) {
            if (s.offset != w.offset) continue;
            found = true;
            EXPECT_EQ(s.id, w.id) << w.offset;
            EXPECT_EQ(s.flags, w.flags) << w.offset;
            EXPECT_EQ(s.size, w.size) << w.offset;
            EXPECT_EQ(s.description, w.description) << w.offset;
        }
        EXPECT_TRUE(found) << "no section at " << w.offset;
    }
}

void expect_summary(const TraceDatReader& r, const std::string& summary) {
    const auto& m = r.metadata();
    EXPECT_EQ(m.saved_cmdlines.size(), summary_number(summary, "Saved command lines"));
    EXPECT_EQ(m.printk_formats.size(), summary_number(summary, "Trace printk"));
    EXPECT_EQ(m.kallsyms.size(), summary_number(summary, "Kallsyms"));
    EXPECT_EQ(m.event_systems.size(), summary_number(summary, "Events format"));
    EXPECT_EQ(m.ftrace_formats.size(), summary_number(summary, "Ftrace format"));
    EXPECT_EQ(m.header_page.size(), summary_number(summary, "Header page"));
    EXPECT_EQ(m.header_event.size(), summary_number(summary, "Header event"));
}

// Records per (buffer name, CPU) counted by walking every page.
std::map<std::pair<std::string, uint32_t>, int> count_all(const TraceDatReader& r) {
    std::map<std::pair<std::string, uint32_t>, int> out;
    for (size_t b = 0; b < r.buffers().size(); ++b) {
        for (size_t c = 0; c < r.buffers()[b].cpus.size(); ++c) {
            auto p = r.cpu_pages(b, c);
            EXPECT_TRUE(p);
            if (!p) continue;
            int n = 0;
            uint64_t last_ts = 0;
            for (;;) {
                auto pg = p->next();
                EXPECT_TRUE(pg);
                if (!pg || pg->empty()) break;
                EXPECT_EQ(pg->size(), p->page_size());
                uint64_t ts;
                std::memcpy(&ts, pg->data(), 8);
                EXPECT_GE(ts, last_ts) << "page timestamps go backwards";
                last_ts = ts;
                n += iotest::count_records(*pg);
            }
            out[{r.buffers()[b].name, p->cpu()}] = n;
        }
    }
    return out;
}

}  // namespace

TEST(ReaderReal, HostFileHeaderOptionsAndSections) {
    auto r = open_ok(data("kvm-agent/host.dat"));
    EXPECT_EQ(r.file_version(), 7u);
    EXPECT_FALSE(r.big_endian());
    EXPECT_EQ(r.long_size(), 8u);
    EXPECT_EQ(r.page_size(), 4096u);
    EXPECT_EQ(r.compression(), Compression::zstd);
    EXPECT_EQ(r.compression_version(), "1.5.4");
    EXPECT_EQ(r.cpu_count(), 1u);

    const auto& o = r.options();
    ASSERT_TRUE(o.trace_id);
    EXPECT_EQ(*o.trace_id, 0x990C9CD046D7554Dull);
    ASSERT_EQ(o.guests.size(), 1u);
    EXPECT_EQ(o.guests[0].name, "vm2");
    EXPECT_EQ(o.guests[0].trace_id, 0xAF847D76ADAAE57Bull);
    ASSERT_EQ(o.guests[0].vcpus.size(), 2u);
    EXPECT_EQ(o.guests[0].vcpus[0].vcpu, 0u);
    EXPECT_EQ(o.guests[0].vcpus[0].host_pid, 159u);
    EXPECT_EQ(o.guests[0].vcpus[1].vcpu, 1u);
    EXPECT_EQ(o.guests[0].vcpus[1].host_pid, 160u);
    ASSERT_TRUE(o.tsc2nsec);
    EXPECT_EQ(o.tsc2nsec->mult, 1073741824u);
    EXPECT_EQ(o.tsc2nsec->shift, 31u);
    EXPECT_EQ(o.tsc2nsec->offset, 0u);
    EXPECT_FALSE(o.time_shift);

    const std::string dump = iotest::read_file(data("kvm-agent/host.dump-options"));
    ASSERT_EQ(o.cpustats.size(), 1u);
    // dump prints the option text followed by a newline.
    EXPECT_NE(dump.find(o.cpustats[0]), std::string::npos);
    EXPECT_EQ(o.cpustats[0].rfind("CPU: 0\nentries: 11030\n", 0), 0u);
    ASSERT_TRUE(o.uname);
    EXPECT_EQ(*o.uname, "Linux (none) 6.1.0-56-amd64 x86_64");
    ASSERT_TRUE(o.version);
    EXPECT_EQ(*o.version, "3.1.6 not-a-git-repo");
    ASSERT_TRUE(o.trace_clock);
    EXPECT_EQ(*o.trace_clock, "local global counter uptime perf mono mono_raw boot tai [x86-tsc]\n");

    expect_sections_match_dump(r, dump);
    expect_summary(r, iotest::read_file(data("kvm-agent/host.dump-summary")));

    ASSERT_EQ(r.buffers().size(), 1u);
    const auto& b = r.buffers()[0];
    EXPECT_EQ(b.name, "");
    EXPECT_EQ(b.clock, "tsc2nsec");
    EXPECT_EQ(b.page_size, 4096u);
    EXPECT_TRUE(b.compressed);
    auto fly = dump_flyrecord(iotest::read_file(data("kvm-agent/host.dump-flyrecord")));
    ASSERT_EQ(fly.size(), 1u);
    ASSERT_EQ(fly[0].size(), b.cpus.size());
    for (size_t i = 0; i < b.cpus.size(); ++i) {
        EXPECT_EQ(b.cpus[i].cpu, fly[0][i].cpu);
        EXPECT_EQ(b.cpus[i].offset, fly[0][i].offset);
        EXPECT_EQ(b.cpus[i].size, fly[0][i].size);
    }
}

// A compressed section that decompresses to fewer bytes than a string holds inline (this file's
// PRINTK section: its 4-byte size, 0) is read from the parser's copy, not from a moved-from one.
TEST(ReaderReal, TinyCompressedSectionsAreReadFromTheirOwnBytes) {
    for (int threads : {1, 2}) {
        for (int i = 0; i < 20; ++i) {
            auto r = TraceDatReader::open(data("fgraph/fgraph-x86_64-6.18.dat"), threads);
            ASSERT_TRUE(r) << r.error().to_string();
            EXPECT_EQ(r->compression(), Compression::zstd);
            EXPECT_EQ(r->metadata().printk_formats, "");
            EXPECT_FALSE(r->metadata().header_page.empty());
        }
    }
    // A zstd file whose CMDLINES section is "1 task\n": report printed "<...>-1" for the task
    // before (trace-cmd: "task-1").
    auto r = TraceDatReader::open(data("../fuzz/seeds/fuzz_trace_dat/hostile-plain.dat"));
    ASSERT_TRUE(r) << r.error().to_string();
    EXPECT_EQ(r->metadata().saved_cmdlines, "1 task\n");
}

TEST(ReaderReal, GuestTimeShiftWithFractionBits) {
    auto r = open_ok(data("kvm-agent/host-vm2.dat"));
    EXPECT_EQ(r.cpu_count(), 2u);
    const auto& o = r.options();
    ASSERT_TRUE(o.time_shift);
    const TimeShift& ts = *o.time_shift;
    EXPECT_EQ(ts.peer_trace_id, 0x990C9CD046D7554Dull);
    EXPECT_EQ(ts.flags, 0u);
    EXPECT_TRUE(ts.has_fraction);
    ASSERT_EQ(ts.cpus.size(), 2u);
    // "\t57022752892 1 0 477919094122[offset * scaling >> fraction @ time]", CPU 0's samples first.
    const std::string dump = iotest::read_file(data("kvm-agent/guest.dump-options"));
    std::regex re(R"(\t(-?\d+) (-?\d+) (-?\d+) (-?\d+)\[offset \* scaling >> fraction @ time\])");
    std::vector<TimeShiftSample> want;
    for (std::sregex_iterator it(dump.begin(), dump.end(), re), end; it != end; ++it)
        want.push_back(
            {std::stoll((*it)[4]), std::stoll((*it)[1]), std::stoll((*it)[2]), std::stoll((*it)[3])});
    ASSERT_EQ(want.size(), 4u);
    size_t k = 0;
    for (const auto& cpu : ts.cpus) {
        ASSERT_EQ(cpu.size(), 2u);
        for (const auto& s : cpu) {
            EXPECT_EQ(s.time, want[k].time);
            EXPECT_EQ(s.offset, want[k].offset);
            EXPECT_EQ(s.scaling, want[k].scaling);
            EXPECT_EQ(s.fraction, want[k].fraction);
            ++k;
        }
    }
    ASSERT_TRUE(o.trace_id);
    EXPECT_EQ(*o.trace_id, 0xAF847D76ADAAE57Bull);
    expect_sections_match_dump(r, dump);
    expect_summary(r, iotest::read_file(data("kvm-agent/guest.dump-summary")));
    auto fly = dump_flyrecord(iotest::read_file(data("kvm-agent/guest.dump-flyrecord")));
    ASSERT_EQ(fly.size(), 1u);
    ASSERT_EQ(fly[0].size(), 2u);
    EXPECT_EQ(r.buffers()[0].cpus[1].offset, fly[0][1].offset);
    EXPECT_EQ(r.buffers()[0].cpus[1].size, fly[0][1].size);
}

TEST(ReaderReal, RecordCountsMatchLibtracecmd) {
    // counts.txt: host.dat 64437 records on CPU 0; host-vm2.dat 4283 on CPU 0 and 3727 on CPU 1.
    const std::string counts = iotest::read_file(data("kvm-agent/counts.txt"));
    ASSERT_NE(counts.find("host.dat: 64437 records"), std::string::npos);
    auto host = count_all(open_ok(data("kvm-agent/host.dat")));
    EXPECT_EQ(host[std::make_pair(std::string(), 0u)], 64437);
    auto guest = count_all(open_ok(data("kvm-agent/host-vm2.dat")));
    ASSERT_NE(counts.find("cpu 0: 4283"), std::string::npos);
    EXPECT_EQ(guest[std::make_pair(std::string(), 0u)], 4283);
    EXPECT_EQ(guest[std::make_pair(std::string(), 1u)], 3727);
    // kvm-extra.dat: 1,422 events (tests/data/kvm/README.md); the report has one line per event
    // after "cpus=1".
    auto kvm = count_all(open_ok(data("kvm/kvm-extra.dat")));
    const std::string report = iotest::read_file(data("kvm/kvm-extra.report"));
    const int lines = static_cast<int>(std::count(report.begin(), report.end(), '\n')) - 1;
    EXPECT_EQ(kvm[std::make_pair(std::string(), 0u)], lines);
    EXPECT_EQ(lines, 1422);
}

// The same two-buffer recording written by trace-cmd three ways (see tests/data/io/make_small_traces.sh).
class MultiBuffer : public ::testing::TestWithParam<std::string> {};

TEST_P(MultiBuffer, BuffersOptionsAndCountsMatchTraceCmd) {
    const std::string base = data("io/" + GetParam());
    auto r = open_ok(base + ".dat");
    const bool v6 = GetParam() == "multi-v6";
    EXPECT_EQ(r.file_version(), v6 ? 6u : 7u);
    EXPECT_EQ(r.compression(), GetParam() == "multi-v7-zstd" ? Compression::zstd : Compression::none);
    ASSERT_EQ(r.buffers().size(), 2u);
    EXPECT_EQ(r.buffers()[0].name, "");
    EXPECT_EQ(r.buffers()[1].name, "rsio");
    EXPECT_EQ(r.buffers()[0].clock, "local");
    EXPECT_EQ(r.buffers()[1].clock, "local");
    if (v6) {
        ASSERT_TRUE(r.metadata().flyrecord_clock);
        EXPECT_NE(r.metadata().flyrecord_clock->find("[local]"), std::string::npos);
    }
    expect_summary(r, iotest::read_file(base + ".dump-summary"));
    if (!v6) expect_sections_match_dump(r, iotest::read_file(base + ".dump-options"));

    const std::string fly_text = iotest::read_file(base + ".dump-flyrecord");
    auto fly = dump_flyrecord(fly_text);
    if (v6) {
        // v6 dump lists only the top buffer's CPU table, and the instance's table offset.
        std::smatch m;
        ASSERT_TRUE(std::regex_search(fly_text, m, std::regex(R"((\d+) \[offset\]\n"rsio" \[name\])")));
        EXPECT_EQ(r.buffers()[1].section_offset, std::stoull(m[1]));
        fly.resize(1);
    }
    ASSERT_EQ(fly.size(), v6 ? 1u : 2u);
    for (size_t b = 0; b < fly.size(); ++b) {
        ASSERT_EQ(fly[b].size(), r.buffers()[b].cpus.size()) << b;
        for (size_t i = 0; i < fly[b].size(); ++i) {
            EXPECT_EQ(r.buffers()[b].cpus[i].cpu, fly[b][i].cpu);
            EXPECT_EQ(r.buffers()[b].cpus[i].offset, fly[b][i].offset);
            EXPECT_EQ(r.buffers()[b].cpus[i].size, fly[b][i].size);
        }
    }
    // Lines of the report per buffer and CPU ("rsio:   comm-pid [001] ..." / "   comm-pid [000] ...").
    std::map<std::pair<std::string, uint32_t>, int> want;
    std::istringstream in(iotest::read_file(data("io/multi.report")));
    std::string line;
    std::regex re(R"(^\s*(rsio:)?.*?-\d+\s+\[(\d{3})\])");
    while (std::getline(in, line)) {
        std::smatch m;
        if (std::regex_search(line, m, re)) ++want[{m[1].matched ? "rsio" : "", std::stoul(m[2])}];
    }
    ASSERT_FALSE(want.empty());
    auto got = count_all(r);
    for (const auto& [k, n] : want) EXPECT_EQ(got[k], n) << k.first << " cpu " << k.second;
    int total_want = 0, total_got = 0;
    for (const auto& [k, n] : want) total_want += n;
    for (const auto& [k, n] : got) total_got += n;
    EXPECT_EQ(total_got, total_want);
    ASSERT_TRUE(r.options().trace_clock);
    EXPECT_GE(r.options().cpustats.size(), 2u);
}

INSTANTIATE_TEST_SUITE_P(Files, MultiBuffer, ::testing::Values("multi-v7-zstd", "multi-v7-none", "multi-v6"));

TEST(ReaderReal, SharedFixturesOpenWhenPresent) {
    const std::string dir = std::string(RINGSCOPE_SHARED_DIR) + "/fixtures";
    if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no " << dir;
    int opened = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
        if (e.path().extension() != ".dat") continue;
        auto r = TraceDatReader::open(e.path().string());
        ASSERT_TRUE(r) << r.error().to_string();
        count_all(*r);
        ++opened;
    }
    if (opened == 0) GTEST_SKIP() << "no .dat files in " << dir;
}
