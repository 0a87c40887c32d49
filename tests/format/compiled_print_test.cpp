// CompiledPrint against PrintEvaluator: for every format file (the committed ones and, when
// tracefs is readable, the running kernel's) whose print fmt compiles, random records (whole,
// truncated, with valid and broken __data_loc words, in both byte orders and both long sizes)
// must print the same bytes both ways, and never more than room() promises.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <random>

#include "format_test_support.hpp"
#include "framework/format/compiled_print.hpp"
#include "framework/format/format_parser.hpp"
#include "framework/format/print_eval.hpp"

namespace fs = std::filesystem;
using ringscope::format::CompiledPrint;
using ringscope::format::EvalContext;
using ringscope::format::PrintEvaluator;
using ringscope::format::Program;
using ringscope::format::RecordView;

namespace {

constexpr char kGuard = '\x5a';

std::vector<uint8_t> random_record(const Program& prog, std::mt19937_64& rng) {
    uint32_t end = 0;
    for (const auto& f : prog.fields) end = std::max(end, f.offset + f.size);
    std::vector<uint8_t> r(end);
    for (auto& b : r) b = static_cast<uint8_t>(rng());
    for (const auto& f : prog.fields) {
        // small values, zeros, all ones: what the conversions branch on
        const uint64_t pick = rng() % 8;
        uint64_t v = pick == 0 ? 0 : pick == 1 ? ~uint64_t{0} : pick < 5 ? rng() % 300 : rng();
        if ((f.flags & ringscope::format::kTepDynamic) && rng() % 4 != 0) {
            // a __data_loc word pointing at a NUL-terminated string appended to the record
            const uint32_t len = static_cast<uint32_t>(rng() % 20);
            const auto at = static_cast<uint32_t>(r.size());
            for (uint32_t i = 0; i + 1 < len; ++i) r.push_back(static_cast<uint8_t>('a' + rng() % 26));
            if (len) r.push_back(0);
            uint32_t o = at;
            if (f.flags & ringscope::format::kTepRelative) o -= f.offset + f.size;
            v = (uint64_t{len} << 16) | (o & 0xffff);
        }
        if ((f.flags & ringscope::format::kTepArray) && !(f.flags & ringscope::format::kTepDynamic)) {
            // char arrays: text, sometimes without a NUL
            for (uint32_t i = 0; i < f.size && f.offset + i < r.size(); ++i)
                r[f.offset + i] = rng() % 5 == 0 ? 0 : static_cast<uint8_t>('A' + rng() % 26);
            continue;
        }
        if (f.offset + f.size <= r.size() && f.size <= 8) std::memcpy(r.data() + f.offset, &v, f.size);
    }
    // now and then a truncated record: reads past its end give 0
    if (rng() % 6 == 0 && !r.empty()) r.resize(rng() % r.size());
    return r;
}

struct Totals {
    int formats = 0, compiled = 0, records = 0;
};

void compare(const std::vector<rtest::FormatFile>& files, int per_format, Totals& t) {
    std::mt19937_64 rng(20261122);
    rtest::TestContext ctx;
    for (const auto& file : files) {
        const std::string text = rtest::read_file(file.path);
        for (int long_size : {8, 4}) {
            auto parsed = ringscope::format::parse_format(text, file.system, long_size);
            if (!parsed) continue;
            const Program& prog = *parsed->program;
            ++t.formats;
            auto compiled = CompiledPrint::compile(prog);
            if (!compiled) continue;
            ++t.compiled;
            for (int i = 0; i < per_format; ++i) {
                const std::vector<uint8_t> rec = random_record(prog, rng);
                const bool swap = i % 2 == 1;
                EvalContext c;
                c.data = rec.data();
                c.size = static_cast<uint32_t>(rec.size());
                c.swap = swap;
                c.file_big_endian = swap != (std::endian::native == std::endian::big);
                c.long_size = long_size;
                c.resolvers = &ctx.resolvers();
                ringscope::TextBuffer expected;
                PrintEvaluator(prog, c).print_info(expected);

                const size_t room = compiled->room(c.size);
                std::string got(room + 64, kGuard);
                const size_t n = compiled->write(got.data(), RecordView{c.data, c.size, swap});
                ASSERT_LE(n, room) << file.path;
                for (size_t k = room; k < got.size(); ++k)
                    ASSERT_EQ(got[k], kGuard) << file.path << ": wrote past room";
                got.resize(n);
                ASSERT_EQ(got, expected.view()) << file.path << " long_size " << long_size << " record " << i;
                ++t.records;
            }
        }
    }
}

}  // namespace

TEST(CompiledPrint, CommonPrintFmtsCompile) {
    const char* sys_enter =
        "name: sys_enter\nID: 21\nformat:\n"
        "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
        "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
        "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
        "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
        "\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
        "\tfield:unsigned long args[6];\toffset:16;\tsize:48;\tsigned:0;\n\n"
        "print fmt: \"NR %ld (%lx, %lx, %lx, %lx, %lx, %lx)\", REC->id, REC->args[0], REC->args[1], "
        "REC->args[2], REC->args[3], REC->args[4], REC->args[5]\n";
    auto parsed = ringscope::format::parse_format(sys_enter, "raw_syscalls");
    ASSERT_TRUE(parsed);
    auto compiled = CompiledPrint::compile(*parsed->program);
    ASSERT_TRUE(compiled);
    uint8_t rec[64] = {};
    const int64_t id = 257;
    std::memcpy(rec + 8, &id, 8);
    const uint64_t args[6] = {0xffffff9c, 0x7ffe5b751e90, 0x80000, 0, 8, 1};
    std::memcpy(rec + 16, args, sizeof args);
    std::string out(compiled->room(sizeof rec), '\0');
    out.resize(compiled->write(out.data(), RecordView{rec, sizeof rec, false}));
    EXPECT_EQ(out, "NR 257 (ffffff9c, 7ffe5b751e90, 80000, 0, 8, 1)");

    // a %pS needs the symbol resolver: left to the evaluator
    std::string with_symbol = sys_enter;
    with_symbol.replace(with_symbol.find("NR %ld"), 6, "%pS");
    parsed = ringscope::format::parse_format(with_symbol, "raw_syscalls");
    ASSERT_TRUE(parsed);
    EXPECT_FALSE(CompiledPrint::compile(*parsed->program));
}

TEST(CompiledPrint, SameAsEvaluatorOnCommittedFormats) {
    auto files = rtest::find_formats(fs::path(RINGSCOPE_TEST_DATA_DIR) / "formats");
    ASSERT_GT(files.size(), 50u);
    Totals t;
    compare(files, 200, t);
    std::printf("committed formats: %d parsed, %d compiled, %d records compared\n", t.formats, t.compiled,
                t.records);
    EXPECT_GT(t.compiled, 20);
    EXPECT_GT(t.records, 4000);
}

TEST(CompiledPrint, SameAsEvaluatorOnLiveFormats) {
    auto files = rtest::find_formats("/sys/kernel/tracing/events");
    if (files.empty()) GTEST_SKIP() << "tracefs not readable";
    Totals t;
    compare(files, 20, t);
    std::printf("live formats: %d parsed, %d compiled, %d records compared\n", t.formats, t.compiled,
                t.records);
    EXPECT_GT(t.compiled, 100);
}
