// A trace's kallsyms are parsed on the first symbol look-up, not when it opens; the answers are
// those of the eager parser, and text that does not parse resolves nothing and says why.
#include <gtest/gtest.h>

#include <cstdlib>

#include "framework/engine/trace_file.hpp"
#include "framework/symbols/kallsyms_resolver.hpp"
#include "framework/symbols/lazy_kallsyms_resolver.hpp"
#include "test_trace.hpp"

namespace ringscope::engine {
namespace {

TEST(LazyKallsyms, TraceFileAnswersAsTheEagerParser) {
    auto f = TraceFile::open(test::data_path("traces/full.dat"), OpenOptions{});
    ASSERT_TRUE(f);
    const std::string& text = (*f)->reader().metadata().kallsyms;
    ASSERT_FALSE(text.empty());
    auto eager = symbols::KallsymsResolver::parse(text, "eager");
    ASSERT_TRUE(eager);
    ASSERT_GT((*eager)->size(), 0u);
    const ResolverService& rs = (*f)->resolvers();
    ASSERT_TRUE(rs.has(kKernelDomain));
    // Every symbol start and a byte inside it resolve to the same name and module.
    size_t checked = 0;
    size_t pos = 0;
    while (pos < text.size() && checked < 500) {
        const size_t eol = text.find('\n', pos);
        const uint64_t addr = std::strtoull(text.c_str() + pos, nullptr, 16);
        pos = eol == std::string::npos ? text.size() : eol + 1;
        for (uint64_t a : {addr, addr + 1}) {
            auto want = (*eager)->lookup(a);
            auto got = rs.lookup(kKernelDomain, a);
            ASSERT_EQ(want.has_value(), got.has_value()) << std::hex << a;
            if (want) {
                EXPECT_EQ(want->name, got->name) << std::hex << a;
                EXPECT_EQ(want->module, got->module) << std::hex << a;
                ++checked;
            }
        }
    }
    EXPECT_GT(checked, 0u);
}

TEST(LazyKallsyms, BadTextResolvesNothingAndSaysWhere) {
    const std::string text = "ffffffff81000000 T good\nnot-an-address T bad\n";
    symbols::LazyKallsymsResolver r(text, "test kallsyms", nullptr);
    EXPECT_FALSE(r.lookup(0xffffffff81000000ull));
    Status st = r.status();
    ASSERT_FALSE(st);
    EXPECT_EQ(st.error().code(), Errc::parse);
    EXPECT_NE(st.error().to_string().find("2:"), std::string::npos) << st.error().to_string();
    EXPECT_NE(r.describe().find("hex address"), std::string::npos) << r.describe();
    EXPECT_EQ(r.table(), nullptr);
}

TEST(LazyKallsyms, GoodTextParsesOnce) {
    // The last symbol has no end (libtraceevent's rule): a third one closes the second.
    const std::string text =
        "ffffffff81000000 T first\nffffffff81000100 t second\t[mod]\nffffffff81000200 T third\n";
    symbols::LazyKallsymsResolver r(text, "test kallsyms", nullptr);
    auto s = r.lookup(0xffffffff81000104ull);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->name, "second");
    EXPECT_EQ(s->module, "mod");
    EXPECT_TRUE(r.status());
    EXPECT_EQ(r.table(), r.table());
    EXPECT_EQ(r.table()->size(), 3u);
}

}  // namespace
}  // namespace ringscope::engine
