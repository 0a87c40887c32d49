#include "framework/symbols/resolver_registry.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "framework/symbols/kallsyms_resolver.hpp"

using ringscope::symbols::KallsymsResolver;
using ringscope::symbols::ResolverRegistry;

namespace {

std::shared_ptr<const KallsymsResolver> table(std::string_view text) {
    auto r = KallsymsResolver::parse(text, "t");
    EXPECT_TRUE(r);
    return *r;
}

}  // namespace

TEST(ResolverRegistry, DomainsAreSeparate) {
    ResolverRegistry reg;
    reg.add("kernel", table("ffffffff81000000 T host_fn\n"));
    reg.add("vm2", table("ffffffff81000000 T guest_fn\n"));
    EXPECT_EQ(reg.lookup("kernel", 0xffffffff81000000).value().name, "host_fn");
    EXPECT_EQ(reg.lookup("vm2", 0xffffffff81000000).value().name, "guest_fn");
    EXPECT_FALSE(reg.lookup("guest", 0xffffffff81000000));
    EXPECT_TRUE(reg.has("vm2"));
    EXPECT_FALSE(reg.has("vm"));
    EXPECT_EQ(reg.domains(), (std::vector<std::string>{"kernel", "vm2"}));
}

TEST(ResolverRegistry, LaterRegistrationsAskedFirst) {
    ResolverRegistry reg;
    reg.add("kernel", table("ffffffff81000000 T old_a\nffffffff82000000 T old_b\n"));
    reg.add("kernel", table("ffffffff81000000 T new_a\n"));
    auto a = reg.lookup("kernel", 0xffffffff81000000);
    ASSERT_TRUE(a);
    EXPECT_EQ(a->name, "new_a");
    // The newer table does not know this address (past its last symbol): the older one answers.
    auto b = reg.lookup("kernel", 0xffffffff82000000);
    ASSERT_TRUE(b);
    EXPECT_EQ(b->name, "old_b");
    EXPECT_EQ(reg.resolvers("kernel").size(), 2u);
    reg.add("kernel", nullptr);  // ignored
    EXPECT_EQ(reg.resolvers("kernel").size(), 2u);
}

TEST(ResolverRegistry, ConcurrentReadsWhileAdding) {
    ResolverRegistry reg;
    reg.add("kernel", table("ffffffff81000000 T a\nffffffff81001000 T b\n"));
    std::atomic<bool> stop{false};
    std::atomic<long> wrong{0}, done{0};
    std::vector<std::thread> readers;
    for (int t = 0; t < 4; ++t)
        readers.emplace_back([&] {
            while (!stop.load()) {
                auto s = reg.lookup("kernel", 0xffffffff81000000);
                if (!s || (s->name != "a" && s->name != "a2")) ++wrong;
                ++done;
            }
        });
    for (int i = 0; i < 200; ++i) reg.add(i % 2 ? "other" : "kernel", table("ffffffff81000000 T a2\n"));
    while (done.load() < 10000) std::this_thread::yield();
    stop = true;
    for (auto& t : readers) t.join();
    EXPECT_EQ(wrong.load(), 0);
    auto last = reg.lookup("kernel", 0xffffffff81000000);
    ASSERT_TRUE(last);
    EXPECT_EQ(last->name, "a2");
    // Past the newest table's only symbol: the first table still answers.
    auto older = reg.lookup("kernel", 0xffffffff81000010);
    ASSERT_TRUE(older);
    EXPECT_EQ(older->name, "a");
}
