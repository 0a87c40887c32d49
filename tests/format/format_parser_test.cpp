#include <gtest/gtest.h>

#include "format_test_support.hpp"
#include "framework/format/format_parser.hpp"
#include "framework/format/text_maps.hpp"

namespace fs = std::filesystem;
using namespace ringscope;
using format::FormatCatalog;

TEST(FormatParser, SchedSwitchFieldsAndTables) {
    auto text = rtest::read_file(fs::path(RINGSCOPE_TEST_DATA_DIR) / "formats/sched/sched_switch/format");
    ASSERT_FALSE(text.empty());
    FormatCatalog cat;
    auto t = cat.add_format(text, "sched");
    ASSERT_TRUE(t) << t.error().to_string();
    const EventType& et = **t;
    EXPECT_EQ(et.name, "sched_switch");
    EXPECT_EQ(et.system, "sched");
    EXPECT_EQ(cat.by_id(et.id), &et);
    EXPECT_EQ(cat.find("sched", "sched_switch"), &et);
    const FieldInfo* comm = et.find_field("prev_comm");
    ASSERT_NE(comm, nullptr);
    EXPECT_EQ(comm->type, "char[16]");
    EXPECT_EQ(comm->size, 16u);
    EXPECT_EQ(comm->array_len, 16u);
    EXPECT_TRUE(comm->flags & kFieldArray);
    EXPECT_TRUE(comm->flags & kFieldString);
    const FieldInfo* pid = et.find_field("common_pid");
    ASSERT_NE(pid, nullptr);
    EXPECT_TRUE(pid->is_signed());
    EXPECT_TRUE(et.pid_field);
    const ValueTable* st = et.table_for("prev_state", true);
    ASSERT_NE(st, nullptr);
    EXPECT_EQ(st->delimiter, "|");
    ASSERT_GE(st->entries.size(), 8u);
    EXPECT_EQ(st->entries[0].first, 0x01u);
    EXPECT_EQ(st->entries[0].second, "S");
    EXPECT_FALSE(cat.print_fmt_failed(et));
}

TEST(FormatParser, DynamicAndRelLocFields) {
    const char* f =
        "name: dyn\nID: 7\nformat:\n"
        "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
        "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
        "\tfield:__data_loc char[] name;\toffset:8;\tsize:4;\tsigned:0;\n"
        "\tfield:__rel_loc u8[] blob;\toffset:12;\tsize:4;\tsigned:0;\n"
        "\tfield:unsigned long stack[4];\toffset:16;\tsize:32;\tsigned:0;\n\n"
        "print fmt: \"%s %lx\", __get_str(name), REC->stack[1]\n";
    FormatCatalog cat;
    auto t = cat.add_format(f, "test");
    ASSERT_TRUE(t) << t.error().to_string();
    const FieldInfo* name = (*t)->find_field("name");
    ASSERT_NE(name, nullptr);
    EXPECT_EQ(name->type, "__data_loc char[]");
    EXPECT_TRUE(name->flags & kFieldDynamic);
    EXPECT_EQ(name->elem_size, 1u);
    const FieldInfo* blob = (*t)->find_field("blob");
    ASSERT_NE(blob, nullptr);
    EXPECT_TRUE(blob->flags & kFieldRelLoc);
    const FieldInfo* stack = (*t)->find_field("stack");
    ASSERT_NE(stack, nullptr);
    EXPECT_EQ(stack->elem_size, 8u);
    EXPECT_TRUE(stack->flags & kFieldLong);
}

TEST(FormatParser, HeaderErrorsNameTheLine) {
    FormatCatalog cat;
    auto t = cat.add_format("name: x\nID: 3\nformat:\n\tfield:int a;\toffset:zz\n", "s");
    ASSERT_FALSE(t);
    EXPECT_EQ(t.error().code(), Errc::parse);
    EXPECT_EQ(t.error().line(), 4);
    auto u = cat.add_format("nom: x\n", "s");
    ASSERT_FALSE(u);
    EXPECT_EQ(u.error().line(), 1);
    // truncated input of every length must fail cleanly or parse, never crash
    auto text = rtest::read_file(fs::path(RINGSCOPE_TEST_DATA_DIR) / "formats/kvm/kvm_exit/format");
    for (size_t n = 0; n < text.size(); n += 7) (void)cat.add_format(text.substr(0, n), "kvm");
}

TEST(FormatParser, PrintkFormatsAndCmdlines) {
    format::PrintkMap pk;
    ASSERT_TRUE(
        format::parse_printk_formats("0xffffffff81000010 : \"hello %d\\n\"\n"
                                     "ffffffff81000020 : \"a: b\"\n\n"
                                     "0x30 : \"no newline\"\n",
                                     pk));
    EXPECT_EQ(pk.at(0xffffffff81000010ull), "hello %d");
    EXPECT_EQ(pk.at(0xffffffff81000020ull), "a: b");
    EXPECT_EQ(pk.at(0x30), "no newline");
    Status bad = format::parse_printk_formats("0x40 : \"x\"\nnocolon\n", pk);
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().line(), 2);
    EXPECT_EQ(pk.at(0x40), "x");

    format::CmdlineMap cm;
    ASSERT_TRUE(format::parse_saved_cmdlines("1 systemd\n42 kworker/0:1 x\n", cm));
    EXPECT_EQ(cm.at(1), "systemd");
    EXPECT_EQ(cm.at(42), "kworker/0:1 x");
    Status b2 = format::parse_saved_cmdlines("7 a\nfoo\n", cm);
    ASSERT_FALSE(b2);
    EXPECT_EQ(b2.error().line(), 2);
}

// Every format of the running kernel parses; print fmts fail exactly where libtraceevent's do.
TEST(FormatParser, LiveFormats) {
    auto files = rtest::find_formats("/sys/kernel/tracing/events");
    if (files.empty()) GTEST_SKIP() << "tracefs not readable";
    FormatCatalog cat;
    std::string args;
    std::map<std::string, int> mine;
    for (const auto& f : files) {
        auto t = cat.add_format(rtest::read_file(f.path), f.system);
        ASSERT_TRUE(t) << f.path << ": " << t.error().to_string();
        mine[f.system + ":" + (*t)->name] = cat.print_fmt_failed(**t) ? 1 : 0;
        args += f.system + ":" + f.path.string() + "\n";
    }
#ifdef RINGSCOPE_TEP_ORACLE
    auto list = fs::temp_directory_path() / ("ringscope-live-formats-" + std::to_string(getpid()));
    std::ofstream(list) << args;
    FILE* p = popen(
        (std::string(RINGSCOPE_TEP_ORACLE) + " -m failed -F " + list.string() + " 2>/dev/null").c_str(), "r");
    ASSERT_NE(p, nullptr);
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, p)) {
        std::string l(line);
        size_t sp = l.rfind(' ');
        ASSERT_NE(sp, std::string::npos);
        int want = std::stoi(l.substr(sp + 1));
        EXPECT_EQ(mine[l.substr(0, sp)], want) << l.substr(0, sp);
        ++n;
    }
    pclose(p);
    fs::remove(list);
    EXPECT_EQ(n, static_cast<int>(files.size()));
#endif
}
