// TraceDatWriter: round trips of every committed file through v7 none/zlib/zstd and v6 preserve
// every section and page byte for byte; Debian's trace-cmd reads the none/zstd/v6 outputs with
// the same report as the original; the streaming API rejects misuse.
#include "framework/io/trace_dat_writer.hpp"
#include "io_test_util.hpp"

using namespace ringscope;
using namespace ringscope::io;
using iotest::data;

namespace {

struct Target {
    const char* name;
    uint32_t version;
    Compression compression;
};

const Target kTargets[] = {
    {"v7-none", 7, Compression::none},
    {"v7-zlib", 7, Compression::zlib},
    {"v7-zstd", 7, Compression::zstd},
    {"v6", 6, Compression::none},
};

const char* kSources[] = {"kvm/kvm-extra.dat",    "kvm-agent/host.dat",   "kvm-agent/host-vm2.dat",
                          "io/multi-v7-zstd.dat", "io/multi-v7-none.dat", "io/multi-v6.dat"};

void expect_same_options(const TraceDatOptions& a, const TraceDatOptions& b) {
    EXPECT_EQ(a.date, b.date);
    EXPECT_EQ(a.cpustats, b.cpustats);
    EXPECT_EQ(a.trace_clock, b.trace_clock);
    EXPECT_EQ(a.uname, b.uname);
    EXPECT_EQ(a.hooks, b.hooks);
    EXPECT_EQ(a.offset, b.offset);
    EXPECT_EQ(a.version, b.version);
    EXPECT_EQ(a.procmaps, b.procmaps);
    EXPECT_EQ(a.trace_id, b.trace_id);
    ASSERT_EQ(a.time_shift.has_value(), b.time_shift.has_value());
    if (a.time_shift) {
        EXPECT_EQ(a.time_shift->peer_trace_id, b.time_shift->peer_trace_id);
        EXPECT_EQ(a.time_shift->flags, b.time_shift->flags);
        EXPECT_EQ(a.time_shift->has_fraction, b.time_shift->has_fraction);
        ASSERT_EQ(a.time_shift->cpus.size(), b.time_shift->cpus.size());
        for (size_t c = 0; c < a.time_shift->cpus.size(); ++c) {
            ASSERT_EQ(a.time_shift->cpus[c].size(), b.time_shift->cpus[c].size());
            for (size_t i = 0; i < a.time_shift->cpus[c].size(); ++i) {
                const auto &x = a.time_shift->cpus[c][i], &y = b.time_shift->cpus[c][i];
                EXPECT_EQ(x.time, y.time);
                EXPECT_EQ(x.offset, y.offset);
                EXPECT_EQ(x.scaling, y.scaling);
                EXPECT_EQ(x.fraction, y.fraction);
            }
        }
    }
    ASSERT_EQ(a.guests.size(), b.guests.size());
    for (size_t g = 0; g < a.guests.size(); ++g) {
        EXPECT_EQ(a.guests[g].name, b.guests[g].name);
        EXPECT_EQ(a.guests[g].trace_id, b.guests[g].trace_id);
        ASSERT_EQ(a.guests[g].vcpus.size(), b.guests[g].vcpus.size());
        for (size_t v = 0; v < a.guests[g].vcpus.size(); ++v) {
            EXPECT_EQ(a.guests[g].vcpus[v].vcpu, b.guests[g].vcpus[v].vcpu);
            EXPECT_EQ(a.guests[g].vcpus[v].host_pid, b.guests[g].vcpus[v].host_pid);
        }
    }
    ASSERT_EQ(a.tsc2nsec.has_value(), b.tsc2nsec.has_value());
    if (a.tsc2nsec) {
        EXPECT_EQ(a.tsc2nsec->mult, b.tsc2nsec->mult);
        EXPECT_EQ(a.tsc2nsec->shift, b.tsc2nsec->shift);
        EXPECT_EQ(a.tsc2nsec->offset, b.tsc2nsec->offset);
    }
    ASSERT_EQ(a.unknown.size(), b.unknown.size());
    for (size_t i = 0; i < a.unknown.size(); ++i) {
        EXPECT_EQ(a.unknown[i].id, b.unknown[i].id);
        EXPECT_EQ(a.unknown[i].data, b.unknown[i].data);
    }
}

void expect_same_content(const TraceDatReader& a, const TraceDatReader& b) {
    const auto &ma = a.metadata(), &mb = b.metadata();
    EXPECT_EQ(ma.header_page, mb.header_page);
    EXPECT_EQ(ma.header_event, mb.header_event);
    EXPECT_EQ(ma.ftrace_formats, mb.ftrace_formats);
    ASSERT_EQ(ma.event_systems.size(), mb.event_systems.size());
    for (size_t i = 0; i < ma.event_systems.size(); ++i) {
        EXPECT_EQ(ma.event_systems[i].system, mb.event_systems[i].system);
        EXPECT_EQ(ma.event_systems[i].formats, mb.event_systems[i].formats);
    }
    EXPECT_EQ(ma.kallsyms, mb.kallsyms);
    EXPECT_EQ(ma.printk_formats, mb.printk_formats);
    EXPECT_EQ(ma.saved_cmdlines, mb.saved_cmdlines);
    EXPECT_EQ(a.cpu_count(), b.cpu_count());
    expect_same_options(ma.options, mb.options);
    EXPECT_EQ(a.big_endian(), b.big_endian());
    EXPECT_EQ(a.long_size(), b.long_size());
    EXPECT_EQ(a.page_size(), b.page_size());
    if (a.file_version() == 6 && b.file_version() == 6) {
        EXPECT_EQ(ma.flyrecord_clock, mb.flyrecord_clock);
    }

    ASSERT_EQ(a.buffers().size(), b.buffers().size());
    for (size_t i = 0; i < a.buffers().size(); ++i) {
        const auto &ba = a.buffers()[i], &bb = b.buffers()[i];
        EXPECT_EQ(ba.name, bb.name);
        EXPECT_EQ(ba.page_size, bb.page_size);
        // v6 has no per-buffer clock: instances show the file's clock.
        if (a.file_version() == 7 && b.file_version() == 7) {
            EXPECT_EQ(ba.clock, bb.clock);
        }
        auto pa = iotest::buffer_pages(a, i);
        auto pb = iotest::buffer_pages(b, i);
        // v6 tables have an entry for every CPU; a CPU missing on one side must be empty there.
        for (const auto& [cpu, pages] : pa) {
            auto it = pb.find(cpu);
            if (it == pb.end()) {
                EXPECT_TRUE(pages.empty()) << "CPU " << cpu;
                continue;
            }
            ASSERT_EQ(pages.size(), it->second.size()) << "buffer " << i << " CPU " << cpu;
            for (size_t k = 0; k < pages.size(); ++k) ASSERT_EQ(pages[k], it->second[k]) << "page " << k;
        }
        for (const auto& [cpu, pages] : pb)
            if (!pa.count(cpu)) {
                EXPECT_TRUE(pages.empty()) << "CPU " << cpu;
            }
    }
}

std::string report(const std::string& path) {
    auto [ok, out] = iotest::run("trace-cmd report '" + path + "' 2>&1");
    EXPECT_TRUE(ok) << out.substr(0, 500);
    return out;
}

}  // namespace

class RoundTrip : public ::testing::TestWithParam<std::tuple<const char*, Target>> {};

TEST_P(RoundTrip, EverySectionAndPageSurvives) {
    const auto& [source, target] = GetParam();
    iotest::TempDir dir;
    ASSERT_TRUE(dir.ok());
    auto src = TraceDatReader::open(data(source));
    ASSERT_TRUE(src) << src.error().to_string();
    WriterConfig cfg;
    cfg.file_version = target.version;
    cfg.compression = target.compression;
    const std::string out = dir.file("out.dat");
    auto st = write_trace_dat_copy(*src, out, cfg);
    ASSERT_TRUE(st) << st.error().to_string();
    auto back = TraceDatReader::open(out);
    ASSERT_TRUE(back) << back.error().to_string();
    EXPECT_EQ(back->file_version(), target.version);
    EXPECT_EQ(back->compression(), target.compression);
    expect_same_content(*src, *back);

    // And once more from the copy: a second generation equals the first.
    const std::string out2 = dir.file("out2.dat");
    ASSERT_TRUE(write_trace_dat_copy(*back, out2, cfg));
    auto back2 = TraceDatReader::open(out2);
    ASSERT_TRUE(back2);
    expect_same_content(*back, *back2);
    EXPECT_EQ(iotest::read_file(out), iotest::read_file(out2)) << "the writer is not deterministic";

    // Debian's trace-cmd has no zlib; for the others its report must not change.
    if (target.compression == Compression::zlib) return;
    if (!iotest::have_trace_cmd()) GTEST_SKIP() << "trace-cmd not installed";
    EXPECT_EQ(report(out), report(data(source)));
}

INSTANTIATE_TEST_SUITE_P(Files, RoundTrip,
                         ::testing::Combine(::testing::ValuesIn(kSources), ::testing::ValuesIn(kTargets)),
                         [](const auto& info) {
                             std::string n =
                                 std::string(std::get<0>(info.param)) + "_" + std::get<1>(info.param).name;
                             for (auto& c : n)
                                 if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                             return n;
                         });

TEST(Writer, TraceCmdReadsOurLayoutLikeTheCommittedReport) {
    // The committed report of multi-*.dat was made by trace-cmd on trace-cmd's own files.
    if (!iotest::have_trace_cmd()) GTEST_SKIP() << "trace-cmd not installed";
    iotest::TempDir dir;
    auto src = TraceDatReader::open(data("io/multi-v7-zstd.dat"));
    ASSERT_TRUE(src);
    const std::string want = iotest::read_file(data("io/multi.report"));
    for (const Target& t : kTargets) {
        if (t.compression == Compression::zlib) continue;
        WriterConfig cfg;
        cfg.file_version = t.version;
        cfg.compression = t.compression;
        const std::string out = dir.file(std::string(t.name) + ".dat");
        ASSERT_TRUE(write_trace_dat_copy(*src, out, cfg));
        EXPECT_EQ(report(out), want) << t.name;
    }
}

TEST(Writer, MetadataMayChangeUntilFinishInV7) {
    iotest::TempDir dir;
    auto src = TraceDatReader::open(data("kvm/kvm-extra.dat"));
    ASSERT_TRUE(src);
    auto pages = iotest::buffer_pages(*src, 0);
    TraceMetadata meta = src->metadata();
    meta.saved_cmdlines.clear();
    meta.options.cpustats.clear();
    auto w =
        TraceDatWriter::create(dir.file("late.dat"), WriterConfig{}, meta, {BufferSpec{"", "local", 0, {0}}});
    ASSERT_TRUE(w) << w.error().to_string();
    ASSERT_TRUE((*w)->begin_cpu());
    for (const auto& p : pages[0]) ASSERT_TRUE((*w)->write_pages(p));
    ASSERT_TRUE((*w)->end_cpu());
    // What a recorder learns at the end.
    (*w)->metadata().saved_cmdlines = src->metadata().saved_cmdlines;
    (*w)->metadata().options.cpustats = src->metadata().options.cpustats;
    ASSERT_TRUE((*w)->finish());
    auto back = TraceDatReader::open(dir.file("late.dat"));
    ASSERT_TRUE(back);
    expect_same_content(*src, *back);
}

TEST(Writer, BigEndianAndFourByteLongRoundTrip) {
    iotest::TempDir dir;
    auto src = TraceDatReader::open(data("kvm-agent/host-vm2.dat"));
    ASSERT_TRUE(src);
    for (uint32_t version : {6u, 7u}) {
        WriterConfig cfg;
        cfg.file_version = version;
        cfg.big_endian = true;
        cfg.long_size = 4;
        std::vector<BufferSpec> specs{{"", "x86-tsc", 0, {0, 1}}};
        const std::string out = dir.file("be" + std::to_string(version) + ".dat");
        auto w = TraceDatWriter::create(out, cfg, src->metadata(), specs);
        ASSERT_TRUE(w) << w.error().to_string();
        auto pages = iotest::buffer_pages(*src, 0);
        for (uint32_t cpu : {0u, 1u}) {
            ASSERT_TRUE((*w)->begin_cpu());
            for (const auto& p : pages[cpu]) ASSERT_TRUE((*w)->write_pages(p));
            ASSERT_TRUE((*w)->end_cpu());
        }
        ASSERT_TRUE((*w)->finish());
        auto back = TraceDatReader::open(out);
        ASSERT_TRUE(back) << back.error().to_string();
        EXPECT_TRUE(back->big_endian());
        EXPECT_EQ(back->long_size(), 4u);
        ASSERT_TRUE(back->options().time_shift);
        EXPECT_EQ(back->options().time_shift->peer_trace_id, 0x990C9CD046D7554Dull);
        EXPECT_EQ(back->options().time_shift->cpus[1][1].time, src->options().time_shift->cpus[1][1].time);
        EXPECT_EQ(back->metadata().kallsyms, src->metadata().kallsyms);
        auto bp = iotest::buffer_pages(*back, 0);
        EXPECT_EQ(bp[0], pages[0]);
        EXPECT_EQ(bp[1], pages[1]);
    }
}

TEST(Writer, MisuseIsRejected) {
    iotest::TempDir dir;
    TraceMetadata meta;
    meta.cpu_count = 2;
    std::vector<uint8_t> page(4096, 0);

    auto bad_version = TraceDatWriter::create(dir.file("a.dat"), WriterConfig{5}, meta, {});
    ASSERT_FALSE(bad_version);
    EXPECT_EQ(bad_version.error().code(), Errc::invalid_argument);

    auto dup = TraceDatWriter::create(dir.file("b.dat"), WriterConfig{}, meta,
                                      {{"x", "", 0, {0}}, {"x", "", 0, {0}}});
    ASSERT_FALSE(dup);
    auto top_late = TraceDatWriter::create(dir.file("c.dat"), WriterConfig{}, meta,
                                           {{"x", "", 0, {0}}, {"", "", 0, {0}}});
    ASSERT_FALSE(top_late);
    WriterConfig v6;
    v6.file_version = 6;
    auto cpu_too_big = TraceDatWriter::create(dir.file("d.dat"), v6, meta, {{"", "", 0, {5}}});
    ASSERT_FALSE(cpu_too_big);
    EXPECT_EQ(cpu_too_big.error().code(), Errc::invalid_argument);

    auto w = TraceDatWriter::create(dir.file("e.dat"), WriterConfig{}, meta, {{"", "local", 0, {0, 1}}});
    ASSERT_TRUE(w);
    EXPECT_FALSE((*w)->write_pages(page));  // outside begin/end
    EXPECT_FALSE((*w)->end_cpu());
    ASSERT_TRUE((*w)->begin_cpu());
    EXPECT_FALSE((*w)->begin_cpu());  // nested
    auto partial = (*w)->write_pages(std::span<const uint8_t>(page.data(), 100));
    ASSERT_FALSE(partial);
    EXPECT_EQ(partial.error().code(), Errc::invalid_argument);
    ASSERT_TRUE((*w)->write_pages(page));
    ASSERT_TRUE((*w)->end_cpu());
    auto early = (*w)->finish();  // CPU 1 never written
    ASSERT_FALSE(early);
    EXPECT_NE(early.error().message().find("CPU 1"), std::string::npos);

    auto w2 = TraceDatWriter::create(dir.file("f.dat"), WriterConfig{}, meta, {{"", "local", 0, {0}}});
    ASSERT_TRUE(w2);
    ASSERT_TRUE((*w2)->begin_cpu());
    ASSERT_TRUE((*w2)->end_cpu());
    EXPECT_FALSE((*w2)->begin_cpu());  // the layout had one CPU
    ASSERT_TRUE((*w2)->finish());
    EXPECT_FALSE((*w2)->finish());
    auto r = TraceDatReader::open(dir.file("f.dat"));
    ASSERT_TRUE(r) << r.error().to_string();
    auto p = r->cpu_pages(0, 0);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->page_count(), 0u);

    auto unwritable = TraceDatWriter::create("/nonexistent-dir/x.dat", WriterConfig{}, meta, {});
    ASSERT_FALSE(unwritable);
    EXPECT_EQ(unwritable.error().code(), Errc::io);
    EXPECT_EQ(unwritable.error().file(), "/nonexistent-dir/x.dat");
}

TEST(Writer, BuffersWithoutCpusAndInstancesOnly) {
    iotest::TempDir dir;
    auto src = TraceDatReader::open(data("io/multi-v7-zstd.dat"));
    ASSERT_TRUE(src);
    auto inst = iotest::buffer_pages(*src, 1);
    for (uint32_t version : {6u, 7u}) {
        WriterConfig cfg;
        cfg.file_version = version;
        // An empty top buffer, then an instance holding only CPU 1's pages.
        std::vector<BufferSpec> specs{{"", "local", 0, {}}, {"rsio", "local", 0, {1}}};
        const std::string out = dir.file("inst" + std::to_string(version) + ".dat");
        auto w = TraceDatWriter::create(out, cfg, src->metadata(), specs);
        ASSERT_TRUE(w) << w.error().to_string();
        ASSERT_TRUE((*w)->begin_cpu());
        for (const auto& p : inst[1]) ASSERT_TRUE((*w)->write_pages(p));
        ASSERT_TRUE((*w)->end_cpu());
        ASSERT_TRUE((*w)->finish());
        auto back = TraceDatReader::open(out);
        ASSERT_TRUE(back) << back.error().to_string();
        ASSERT_EQ(back->buffers().size(), 2u);
        EXPECT_EQ(back->buffers()[1].name, "rsio");
        auto bp = iotest::buffer_pages(*back, 1);
        EXPECT_EQ(bp[1], inst[1]);
        for (const auto& [cpu, pages] : iotest::buffer_pages(*back, 0)) EXPECT_TRUE(pages.empty());
        if (!iotest::have_trace_cmd()) continue;
        auto [ok, text] = iotest::run("trace-cmd report '" + out + "' 2>&1");
        EXPECT_TRUE(ok) << text.substr(0, 300);
        // Every rsio CPU 1 line of the committed report, and nothing else.
        std::istringstream want_in(iotest::read_file(data("io/multi.report")));
        std::string line;
        int want = 0;
        while (std::getline(want_in, line))
            if (line.rfind("rsio:", 0) == 0 && line.find("[001]") != std::string::npos) ++want;
        EXPECT_GT(want, 0);
        int got = 0;
        std::istringstream got_in(text);
        while (std::getline(got_in, line))
            if (line.find("[001]") != std::string::npos) ++got;
        EXPECT_EQ(got, want);
    }
}

// The project's recorded traces (tests/data/traces, made by a colleague's record.sh) when present:
// every one survives each target format, and trace-cmd reports our copies like the originals.
TEST(Writer, RecordedTracesRoundTrip) {
    const std::string dir = data("traces");
    if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no " << dir;
    std::vector<std::string> files;
    for (const auto& e : std::filesystem::directory_iterator(dir))
        if (e.path().extension() == ".dat") files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    if (files.empty()) GTEST_SKIP() << "no .dat files in " << dir;
    const bool oracle = iotest::have_trace_cmd();
    iotest::TempDir tmp;
    for (const auto& f : files) {
        SCOPED_TRACE(f);
        auto src = TraceDatReader::open(f);
        ASSERT_TRUE(src) << src.error().to_string();
        const std::string want = oracle ? report(f) : "";
        for (const Target& t : kTargets) {
            SCOPED_TRACE(t.name);
            WriterConfig cfg;
            cfg.file_version = t.version;
            cfg.compression = t.compression;
            const std::string out = tmp.file(std::string(t.name) + ".dat");
            auto st = write_trace_dat_copy(*src, out, cfg);
            ASSERT_TRUE(st) << st.error().to_string();
            auto back = TraceDatReader::open(out);
            ASSERT_TRUE(back) << back.error().to_string();
            expect_same_content(*src, *back);
            if (oracle && t.compression != Compression::zlib) {
                EXPECT_EQ(report(out), want);
            }
        }
    }
}

// trace-cmd 3.4's BTF_FILE (23), LAST_BOOT_INFO (24) and MODULES_FILE (25) options hold offsets of
// sections of their own file: a copy must not carry them over pointing at nothing (it once did), and
// writes the sections again with options of its own (it once dropped them).
TEST(Writer, CopyOfATraceCmd34FileRewritesItsSections) {
    const std::string f = std::string(RINGSCOPE_SHARED_DIR) + "/conformance/trace-cmd-3.4/extract-3.4.dat";
    if (!std::filesystem::exists(f)) GTEST_SKIP() << "no " << f;
    auto src = TraceDatReader::open(f);
    ASSERT_TRUE(src) << src.error().to_string();
    auto is_section_offset = [](const RawOption& r) { return is_section_offset_option(r.id); };
    const auto& before = src->metadata().options.unknown;
    ASSERT_EQ(std::count_if(before.begin(), before.end(), is_section_offset), 1)
        << "the file has a BTF section";
    iotest::TempDir tmp;
    const std::string out = tmp.file("copy.dat");
    WriterConfig cfg;
    cfg.compression = Compression::zstd;
    auto st = write_trace_dat_copy(*src, out, cfg);
    ASSERT_TRUE(st) << st.error().to_string();
    auto back = TraceDatReader::open(out);
    ASSERT_TRUE(back) << back.error().to_string();
    const auto& after = back->metadata().options.unknown;
    EXPECT_EQ(std::count_if(after.begin(), after.end(), is_section_offset), 1);
    EXPECT_EQ(after.size(), before.size());
    auto btf_before = src->option_section(OptionId::btf_file);
    auto btf_after = back->option_section(OptionId::btf_file);
    ASSERT_TRUE(btf_before && btf_after) << (btf_after ? "" : btf_after.error().to_string());
    ASSERT_TRUE(btf_after->has_value());
    EXPECT_EQ(btf_after->value().size(), 5520272u);
    EXPECT_TRUE(**btf_after == **btf_before);
    if (iotest::have_trace_cmd()) {
        EXPECT_EQ(report(out), report(f));
    }
}
