// Printing rules of libtraceevent that the differential test meets only by chance, on
// hand-written formats and records.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "format_test_support.hpp"

using namespace ringscope;
using format::FormatCatalog;

namespace {

const char* kHeader =
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n";

std::string make_format(const char* name, int id, const std::string& fields, const std::string& fmt) {
    return std::string("name: ") + name + "\nID: " + std::to_string(id) + "\nformat:\n" + kHeader + fields +
           "\nprint fmt: " + fmt + "\n";
}

struct Printer {
    FormatCatalog cat;
    rtest::TestContext ctx{&cat};
    Printer() {
        ctx.service().add("kernel", std::make_shared<rtest::TestResolver>(
                                        std::vector<rtest::Sym>{{0xffffffff81000000ull, "alpha"},
                                                                {0xffffffff81000100ull, "beta"},
                                                                {0xffffffff81000200ull, "gamma"}}));
    }
    std::string info(const EventType* t, std::vector<uint8_t> rec) {
        std::memcpy(rec.data(), &t->id, 2);
        Event ev(t, &ctx, rec, 0, 0);
        TextBuffer out;
        cat.print_info(ev, out);
        return std::string(out.view());
    }
};

std::vector<uint8_t> rec_with(size_t size, std::initializer_list<std::pair<uint32_t, uint64_t>> vals,
                              uint32_t n = 4) {
    std::vector<uint8_t> r(size);
    for (auto [off, v] : vals) std::memcpy(r.data() + off, &v, n);
    return r;
}

}  // namespace

TEST(FormatPrint, OperatorsAssociateLikeLibtraceevent) {
    Printer p;
    std::string fields =
        "\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n"
        "\tfield:int b;\toffset:12;\tsize:4;\tsigned:1;\n"
        "\tfield:int c;\toffset:16;\tsize:4;\tsigned:1;\n";
    auto t = p.cat.add_format(make_format("ops", 10, fields,
                                          "\"%d %d %d\", REC->a - REC->b + REC->c, "
                                          "REC->a ? REC->b : REC->c, REC->c * (REC->a + REC->b)"),
                              "t");
    ASSERT_TRUE(t) << t.error().to_string();
    // a - b + c is a - (b + c); c * (a + b) rotates into (c * a) + b
    EXPECT_EQ(p.info(*t, rec_with(20, {{8, 10}, {12, 3}, {16, 2}})), "5 3 23");
}

TEST(FormatPrint, UnparsableFormatPrintsFields) {
    Printer p;
    std::string fields =
        "\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n\tfield:unsigned long "
        "ip;\toffset:16;\tsize:8;\tsigned:0;\n";
    auto t = p.cat.add_format(make_format("bad", 11, fields, "\"%d\", no_such_helper(REC->x)"), "t");
    ASSERT_TRUE(t);
    EXPECT_TRUE(p.cat.print_fmt_failed(**t));
    EXPECT_EQ(p.info(*t, rec_with(24, {{8, static_cast<uint64_t>(-5) & 0xffffffff}, {16, 0x1234}})),
              "[FAILED TO PARSE] x=-5 ip=0x1234");
}

TEST(FormatPrint, SymbolsFlagsAndSymbolic) {
    Printer p;
    std::string fields =
        "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
        "\tfield:unsigned int fl;\toffset:16;\tsize:4;\tsigned:0;\n"
        "\tfield:int mode;\toffset:20;\tsize:4;\tsigned:1;\n";
    auto t = p.cat.add_format(
        make_format("sym", 12, fields,
                    "\"%pS %ps [%s] %s\", (void *)REC->ip, (void *)REC->ip, __print_flags(REC->fl, \"|\", { "
                    "1, \"A\" }, "
                    "{ 2, \"B\" }), __print_symbolic(REC->mode, { 0, \"zero\" }, { 3, \"three\" })"),
        "t");
    ASSERT_TRUE(t) << t.error().to_string();
    auto r = rec_with(24, {{16, 7}, {20, 3}});
    uint64_t ip = 0xffffffff81000110ull;
    std::memcpy(r.data() + 8, &ip, 8);
    EXPECT_EQ(p.info(*t, r), "beta+0x10 beta [A|B|0x4] three");
    ip = 0x1000;
    std::memcpy(r.data() + 8, &ip, 8);
    uint32_t mode = 9;
    std::memcpy(r.data() + 20, &mode, 4);
    EXPECT_EQ(p.info(*t, r), "0x1000 0x1000 [A|B|0x4] 0x9");
    const ValueTable* vt = (*t)->table_for("mode", false);
    ASSERT_NE(vt, nullptr);
    EXPECT_EQ(vt->entries.size(), 2u);
}

TEST(FormatPrint, ShortRecordsReadAsZero) {
    Printer p;
    std::string fields =
        "\tfield:__data_loc char[] s;\toffset:8;\tsize:4;\tsigned:0;\n\tfield:u64 "
        "v;\toffset:12;\tsize:8;\tsigned:0;\n";
    auto t = p.cat.add_format(make_format("short", 13, fields, "\"[%s] %llu\", __get_str(s), REC->v"), "t");
    ASSERT_TRUE(t);
    // the record ends inside the first field: nothing is read past it
    EXPECT_EQ(p.info(*t, std::vector<uint8_t>(10)), "[] 0");
    // a __data_loc pointing past the end prints nothing
    auto r = rec_with(20, {{8, (5u << 16) | 400u}});
    EXPECT_EQ(p.info(*t, r), "[] 0");
}

// ftrace/raw_data's `char buf[]` has size 0: libtraceevent's raw print runs "%s" from the field on,
// past the record into the rest of the sub-buffer; Event::trailing() bounds what ringscope reads.
TEST(FormatPrint, RawZeroLengthStringReadsThePageAfterTheRecord) {
    Printer p;
    std::string fields =
        "\tfield:unsigned int id;\toffset:8;\tsize:4;\tsigned:0;\n"
        "\tfield:char buf[];\toffset:12;\tsize:0;\tsigned:1;\n";
    auto t = p.cat.add_format(
        make_format("raw_data", 12, fields, "\"id:%04x %08x\", REC->id, (int)REC->buf[0]"), "ftrace");
    ASSERT_TRUE(t) << t.error().to_string();
    // the record (12 bytes) then what follows it in the page: "&U", a NUL, more bytes
    std::vector<uint8_t> page = rec_with(12, {{8, 0x2a}});
    std::memcpy(page.data(), &(*t)->id, 2);
    for (char b : {'&', 'U', '\0', 'x'}) page.push_back(static_cast<uint8_t>(b));
    auto raw = [&](uint32_t trailing) {
        Event ev(*t, &p.ctx, std::span<const uint8_t>(page.data(), 12), 0, 0, 0, trailing);
        TextBuffer out;
        p.cat.print_raw(ev, out);
        return std::string(out.view());
    };
    EXPECT_EQ(raw(4), " id=002a buf=&U");
    EXPECT_EQ(raw(1), " id=002a buf=&");  // the end of the sub-buffer stops it
    EXPECT_EQ(raw(0), " id=002a buf=");
}

// trailing_ lives in the padding after swap_: adding it did not change the SDK's Event layout.
static_assert(sizeof(void*) != 8 || sizeof(Event) == 56);

// Hostile print fmts (issue 25): nesting the recursive parser overflowed the stack on.
TEST(FormatPrint, NestingPastTheLimitFailsTheFormatAndSaysWhere) {
    const std::string fields = "\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n";
    auto nested = [](int n) {
        std::string s;
        for (int i = 0; i < n; ++i) s += "REC->x ? ";
        s += "7";
        for (int i = 0; i < n; ++i) s += " : 0";
        return s;
    };
    auto parens = [](int n) { return std::string(n, '(') + "REC->x" + std::string(n, ')'); };
    auto symbolic = [](int n) {
        std::string s;
        for (int i = 0; i < n; ++i) s += "__print_symbolic(";
        s += "REC->x";
        for (int i = 0; i < n; ++i) s += ", { 1, \"one\" })";
        return s;
    };
    const std::vector<std::pair<std::string, std::string>> deep = {
        {"cond", "\"%d\", " + nested(20000)},
        {"parens", "\"%d\", " + parens(100000)},
        {"symbolic", "\"%s\", " + symbolic(20000)},
        {"chain", "\"%d\", REC->x" +
                      [] {
                          std::string s;
                          for (int i = 0; i < 200000; ++i) s += " + REC->x";
                          return s;
                      }()},
    };
    for (const auto& [name, fmt] : deep) {
        SCOPED_TRACE(name);
        Printer p;
        const std::string text = make_format("deep", 12, fields, fmt);
        const auto fmt_line = 1 + std::count(text.begin(), text.begin() + text.find("print fmt"), '\n');
        auto t = p.cat.add_format(text, "t");
        ASSERT_TRUE(t) << t.error().to_string();
        EXPECT_TRUE(p.cat.print_fmt_failed(**t));
        EXPECT_EQ(p.info(*t, rec_with(12, {{8, 1}})), "[FAILED TO PARSE] x=1");
        const auto where = p.cat.too_deep();
        ASSERT_EQ(where.size(), 1u);
        EXPECT_EQ(where[0].first, "t/deep");
        EXPECT_EQ(where[0].second.line(), fmt_line);
        EXPECT_GT(where[0].second.column(), 0);
        EXPECT_NE(where[0].second.message().find("nested deeper than 256 levels"), std::string::npos);
        ASSERT_EQ(p.cat.errors().size(), 1u);  // so report --check-events fails
    }
    // Nesting kernel print fmts use (below 30) and up to the limit still parses and prints.
    Printer p;
    auto t =
        p.cat.add_format(make_format("ok", 13, fields, "\"%d %d\", " + nested(60) + ", " + parens(100)), "t");
    ASSERT_TRUE(t);
    EXPECT_FALSE(p.cat.print_fmt_failed(**t));
    EXPECT_EQ(p.info(*t, rec_with(12, {{8, 1}})), "7 1");
    EXPECT_TRUE(p.cat.too_deep().empty());
}

// Widths and precisions as the kernel's vsprintf clamps them: 2^31 - 1 took 2 GB (or never ended).
TEST(FormatPrint, WidthsAndPrecisionsAreClampedAsTheKernelClampsThem) {
    const std::string fields = "\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n";
    struct Case {
        std::string fmt;
        size_t size;
        std::string tail;
    };
    const std::vector<Case> cases = {
        {"\"%*d\", 2147483647, REC->x", 8388607, " 5"},   {"\"%2147483647d\", REC->x", 8388607, " 5"},
        {"\"%-*d|\", 2147483647, REC->x", 8388608, " |"}, {"\"%.*d\", 2147483647, REC->x", 32767, "05"},
        {"\"%.99999999d\", REC->x", 32767, "05"},         {"\"%*s\", 2147483647, \"ab\"", 8388607, "ab"},
        {"\"%#*x\", 2147483647, REC->x", 8388607, "0x5"}, {"\"%5d|\", REC->x", 6, "    5|"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.fmt);
        Printer p;
        auto t = p.cat.add_format(make_format("wide", 14, fields, c.fmt), "t");
        ASSERT_TRUE(t) << t.error().to_string();
        const std::string out = p.info(*t, rec_with(12, {{8, 5}}));
        EXPECT_EQ(out.size(), c.size);
        EXPECT_EQ(out.substr(out.size() - std::min(out.size(), c.tail.size())), c.tail);
    }
}
