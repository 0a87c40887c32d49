// A trace's kallsyms are parsed on the first symbol look-up, not when it opens; the answers are
// those of the eager parser, and text that does not parse resolves nothing and says why.
#include <gtest/gtest.h>

#include <cstdlib>
#include <thread>
#include <vector>

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

TEST(LazyKallsyms, PrefetchedAnswersTheSame) {
    // report -j parses on a thread of its own while it sets up; the answers do not change, any
    // number of threads may ask while it runs, and a table never asked is joined, not leaked.
    OpenOptions prefetch;
    prefetch.prefetch_kallsyms = true;
    prefetch.prefetch_min_data = 0;  // full.dat is small
    auto lazy = TraceFile::open(test::data_path("traces/full.dat"), OpenOptions{});
    auto early = TraceFile::open(test::data_path("traces/full.dat"), prefetch);
    ASSERT_TRUE(lazy && early);
    const std::string& text = (*lazy)->reader().metadata().kallsyms;
    std::vector<uint64_t> addrs;
    for (size_t pos = 0; pos < text.size() && addrs.size() < 400;) {
        const size_t eol = text.find('\n', pos);
        const uint64_t addr = std::strtoull(text.c_str() + pos, nullptr, 16);
        addrs.push_back(addr);
        addrs.push_back(addr + 3);
        pos = eol == std::string::npos ? text.size() : eol + 1;
    }
    ASSERT_FALSE(addrs.empty());
    std::vector<std::thread> askers;
    std::vector<int> mismatches(2, 0);
    for (size_t t = 0; t < mismatches.size(); ++t) {
        askers.emplace_back([&, t] {
            for (uint64_t a : addrs) {
                auto want = (*lazy)->resolvers().lookup(kKernelDomain, a);
                auto got = (*early)->resolvers().lookup(kKernelDomain, a);
                if (want.has_value() != got.has_value() || (want && (want->name != got->name)))
                    ++mismatches[t];
            }
        });
    }
    for (auto& t : askers) t.join();
    EXPECT_EQ(mismatches, std::vector<int>(2, 0));

    const std::string small = "ffffffff81000000 T first\nffffffff81000100 t second\n";
    auto unasked = std::make_unique<symbols::LazyKallsymsResolver>(small, "unasked", nullptr);
    unasked->prefetch();
    unasked->prefetch();  // started already: no second thread
    unasked.reset();
    symbols::LazyKallsymsResolver asked(small, "asked", nullptr);
    asked.prefetch();
    EXPECT_EQ(asked.lookup(0xffffffff81000004ull).value().name, "first");
    EXPECT_EQ(asked.table()->size(), 2u);
}

}  // namespace
}  // namespace ringscope::engine
