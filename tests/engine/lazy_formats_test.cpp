// Event formats parsed on first use: a TraceFile sees exactly the types, ids and errors that parsing
// every format at open gives; a bad format is reported (file, line:column) when its event is looked
// up or the formats are listed, and its events stay unknown.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "framework/engine/blktrace_format.hpp"
#include "framework/engine/event_merger.hpp"
#include "framework/engine/trace_file.hpp"
#include "framework/format/format_catalog.hpp"
#include "framework/io/trace_dat_writer.hpp"
#include "test_trace.hpp"

namespace ringscope::engine {
namespace {

std::string name_of(const EventType* t) {
    return t ? t->system + "/" + t->name + "#" + std::to_string(t->id) : "-";
}

// Every committed trace: the same types in the same order, the same type per id, no errors.
TEST(LazyFormats, SameTypesAndIdsAsParsingEverythingAtOpen) {
    for (const char* name : {"basic.dat", "full.dat", "instances.dat", "formats-none.dat", "formats-v6.dat",
                             "formats-zstd.dat", "function.dat", "dropped.dat"}) {
        SCOPED_TRACE(name);
        auto f = test::open_file(test::data_path(std::string("traces/") + name));
        const io::TraceMetadata& md = f->reader().metadata();
        format::FormatCatalog all(f->long_size(), f->big_endian());
        std::vector<std::string> errors;
        for (const auto& text : md.ftrace_formats)
            if (auto t = all.add_format(text, "ftrace"); !t) errors.push_back(t.error().to_string());
        for (const auto& sys : md.event_systems)
            for (const auto& text : sys.formats)
                if (auto t = all.add_format(text, sys.system); !t) errors.push_back(t.error().to_string());
        // and libtracecmd's made-up ftrace:blktrace, last, as TraceFile adds it
        if (auto blk = blktrace_format(all)) {
            ASSERT_TRUE(all.add_format(*blk, "ftrace"));
        }
        // ids first (the iteration's path), then the listing
        for (uint32_t id = 0; id < 4096; ++id)
            EXPECT_EQ(name_of(f->type_by_id(id)), name_of(all.by_id(id))) << id;
        const auto lazy_types = f->types();
        const auto all_types = all.types();
        ASSERT_EQ(lazy_types.size(), all_types.size());
        ASSERT_GT(all_types.size(), 10u);
        for (size_t i = 0; i < all_types.size(); ++i) {
            EXPECT_EQ(name_of(lazy_types[i]), name_of(all_types[i]));
            EXPECT_EQ(lazy_types[i]->fields.size(), all_types[i]->fields.size());
            EXPECT_EQ(lazy_types[i]->print_fmt, all_types[i]->print_fmt);
            EXPECT_EQ(lazy_types[i]->tables.size(), all_types[i]->tables.size());
        }
        EXPECT_EQ(f->format_errors().size(), errors.size());
    }
}

// basic.dat with its sched_switch format broken in a field line and a new bad event format.
struct BadFile {
    std::string path;
    uint32_t switch_id = 0;
};

BadFile write_bad_formats() {
    auto reader = io::TraceDatReader::open(test::data_path("traces/basic.dat"));
    if (!reader) throw std::runtime_error(reader.error().to_string());
    io::TraceMetadata md = reader->metadata();
    BadFile out;
    bool broke = false;
    for (auto& sys : md.event_systems) {
        if (sys.system != "sched") continue;
        for (auto& text : sys.formats) {
            if (text.find("name: sched_switch\n") != 0) continue;
            out.switch_id = static_cast<uint32_t>(std::stoul(text.substr(text.find("ID: ") + 4)));
            const size_t at = text.find("offset:", text.find("prev_comm"));
            text.replace(at, 7, "offzet:");
            broke = true;
        }
        sys.formats.push_back("name: lazy_bad\nID: 9999\nformat:\n\tfield:int a;\toffset:zz;\tsize:4;\n");
    }
    if (!broke) throw std::runtime_error("no sched_switch format in basic.dat");
    out.path = (std::filesystem::temp_directory_path() / "ringscope-lazy-bad-formats.dat").string();
    io::WriterConfig cfg;
    cfg.compression = io::Compression::none;
    if (auto st = io::write_trace_dat_copy(*reader, out.path, cfg, md); !st)
        throw std::runtime_error(st.error().to_string());
    return out;
}

TEST(LazyFormats, BadFormatReportedWithFileAndLineWhenUsedOrListed) {
    const BadFile bad = write_bad_formats();
    auto f = test::open_file(bad.path);
    // Its events are met: unknown, as before (the format is dropped).
    auto streams = f->open_streams(0);
    ASSERT_TRUE(streams);
    EventMerger m;
    int n = 0;
    for (auto& s : *streams) m.add(MergeSource{f.get(), 0, 0, n++, std::move(s)});
    const Record* rec;
    MergeSource* src;
    size_t switches = 0, known = 0;
    while (m.next(rec, src)) {
        uint16_t id;
        std::memcpy(&id, rec->data, 2);
        switches += id == bad.switch_id;
        if (const EventType* t = f->type_of(rec->data, rec->size)) {
            ++known;
            EXPECT_NE(t->name, "sched_switch");
        }
    }
    EXPECT_GT(switches, 0u);
    EXPECT_GT(known, 0u);
    EXPECT_EQ(f->type_by_id(bad.switch_id), nullptr);
    EXPECT_EQ(f->find_type("sched", "sched_switch"), nullptr);
    EXPECT_EQ(f->find_type("sched", "lazy_bad"), nullptr);
    EXPECT_NE(f->find_type("sched", "sched_wakeup"), nullptr);

    // Listed: both errors, in the order of the file, with the file and line:column.
    const auto& errors = f->format_errors();
    ASSERT_EQ(errors.size(), 2u);
    EXPECT_NE(errors[0].find(bad.path), std::string::npos) << errors[0];
    EXPECT_NE(errors[0].find("sched: "), std::string::npos) << errors[0];
    EXPECT_NE(errors[0].find("line "), std::string::npos) << errors[0];
    EXPECT_NE(errors[0].find("prev_comm"), std::string::npos) << errors[0];
    EXPECT_NE(errors[1].find(bad.path + ": sched: line "), std::string::npos) << errors[1];
    for (const EventType* t : f->types()) EXPECT_NE(t->name, "sched_switch");

    // The eager catalog gives the same messages.
    format::FormatCatalog all(f->long_size(), f->big_endian());
    std::vector<std::string> want;
    for (const auto& sys : f->reader().metadata().event_systems)
        for (const auto& text : sys.formats)
            if (auto t = all.add_format(text, sys.system); !t) want.push_back(t.error().to_string());
    ASSERT_EQ(want.size(), 2u);
    for (size_t i = 0; i < 2; ++i) EXPECT_NE(errors[i].find(want[i]), std::string::npos) << errors[i];
    std::filesystem::remove(bad.path);
}

TEST(LazyFormats, LaterFormatOfAnIdWinsUnlessItDoesNotParse) {
    const std::string common =
        "format:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n";
    const std::string a = "name: first\nID: 7\n" + common +
                          "\tfield:int x;\toffset:4;\tsize:4;\tsigned:1;\n\nprint fmt: \"%d\", REC->x\n";
    const std::string b = "name: second\nID: 7\n" + common +
                          "\tfield:int y;\toffset:4;\tsize:4;\tsigned:1;\n\nprint fmt: \"%d\", REC->y\n";
    // the error is on line 6, the field's
    const std::string broken = "name: third\nID: 7\n" + common + "\tfield:int z;\toffzet:4;\tsize:4;\n";
    {
        format::FormatCatalog c;
        ASSERT_TRUE(c.declare_format(a, "t"));
        ASSERT_TRUE(c.declare_format(b, "t"));
        EXPECT_EQ(name_of(c.by_id(7)), "t/second#7");
        EXPECT_EQ(name_of(c.find("t", "first")), "t/first#7");
        EXPECT_EQ(c.size(), 2u);
    }
    {
        format::FormatCatalog c;
        ASSERT_TRUE(c.declare_format(a, "t"));
        ASSERT_TRUE(c.declare_format(broken, "t"));
        EXPECT_EQ(name_of(c.by_id(7)), "t/first#7");
        EXPECT_EQ(c.types().size(), 1u);
        const auto errors = c.errors();
        ASSERT_EQ(errors.size(), 1u);
        EXPECT_EQ(errors[0].first, "t");
        EXPECT_NE(errors[0].second.to_string().find("line 6"), std::string::npos)
            << errors[0].second.to_string();
    }
    {
        // Only what matches is parsed: an error elsewhere stays unseen until listed.
        format::FormatCatalog c;
        ASSERT_TRUE(c.declare_format(broken, "t"));
        ASSERT_TRUE(c.declare_format(b, "u"));
        auto u = c.types_if([](std::string_view sys, std::string_view) { return sys == "u"; });
        ASSERT_EQ(u.size(), 1u);
        EXPECT_EQ(u[0]->name, "second");
        EXPECT_EQ(c.errors().size(), 1u);
    }
    {
        // A header that does not read plainly is parsed at once: its error comes back at once.
        format::FormatCatalog c;
        const Status st = c.declare_format("nom: x\n", "s");
        EXPECT_FALSE(st);
        EXPECT_EQ(c.types().size(), 0u);
        EXPECT_TRUE(c.declare_format("name: odd\nID: 0x10\n" + common + "\n", "s"));
        EXPECT_EQ(name_of(c.by_id(16)), "s/odd#16");
    }
}

}  // namespace
}  // namespace ringscope::engine
