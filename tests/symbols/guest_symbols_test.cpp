#include "framework/symbols/guest_symbols.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "framework/symbols/resolver_registry.hpp"

using ringscope::Errc;
using namespace ringscope::symbols;

TEST(GuestSymbolsArg, Forms) {
    auto a = parse_guest_symbols_arg("guest-kallsyms");
    ASSERT_TRUE(a);
    EXPECT_EQ(a->guest, "guest");
    EXPECT_EQ(a->path, "guest-kallsyms");
    auto b = parse_guest_symbols_arg("vm2=/tmp/k");
    ASSERT_TRUE(b);
    EXPECT_EQ(b->guest, "vm2");
    EXPECT_EQ(b->path, "/tmp/k");
    auto c = parse_guest_symbols_arg("/data/a=b/kallsyms");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->guest, "guest");
    EXPECT_EQ(c->path, "/data/a=b/kallsyms");
    auto d = parse_guest_symbols_arg("vm=x=y");
    ASSERT_TRUE(d);
    EXPECT_EQ(d->guest, "vm");
    EXPECT_EQ(d->path, "x=y");
    for (const char* bad : {"", "=file", "vm2="}) {
        auto e = parse_guest_symbols_arg(bad);
        ASSERT_FALSE(e) << bad;
        EXPECT_EQ(e.error().code(), Errc::invalid_argument);
    }
}

TEST(GuestSymbols, LoadByContentAndRegister) {
    auto dir = std::filesystem::path(RINGSCOPE_BINARY_DIR) / "tests" / "data-symbols";
    std::filesystem::create_directories(dir);
    auto text = (dir / "guest.kallsyms").string();
    std::ofstream(text) << "ffffffff81000000 T guest_start\nffffffff81000100 T guest_next\n";
    auto k = load_symbol_file(text);
    ASSERT_TRUE(k) << k.error().to_string();
    EXPECT_NE((*k)->describe().find("kallsyms:"), std::string::npos);
    auto e = load_symbol_file(SYMBOLS_FAKE_MODULE_OBJECT);
    ASSERT_TRUE(e) << e.error().to_string();
    EXPECT_NE((*e)->describe().find("elf:"), std::string::npos);
    auto bad = (dir / "bad.kallsyms").string();
    std::ofstream(bad) << "ffffffff81000000 T ok\nxyz\n";
    auto b = load_symbol_file(bad);
    ASSERT_FALSE(b);
    EXPECT_EQ(b.error().line(), 2);
    EXPECT_FALSE(load_symbol_file((dir / "absent").string()));

    ResolverRegistry reg;
    int pids[] = {159, 160};
    register_guest(reg, "vm2", pids, *k);
    EXPECT_EQ(vcpu_thread_domain(159), "kvm-vcpu-thread:159");
    auto start = reg.lookup("vm2", 0xffffffff81000004);
    ASSERT_TRUE(start);
    EXPECT_EQ(start->name, "guest_start");
    auto next = reg.lookup("kvm-vcpu-thread:160", 0xffffffff81000100);
    ASSERT_TRUE(next);
    EXPECT_EQ(next->name, "guest_next");
    EXPECT_FALSE(reg.lookup("kvm-vcpu-thread:160", 0xffffffff81000104));  // past the last symbol
    EXPECT_FALSE(reg.has("kvm-vcpu-thread:161"));
}

// The functions meant for the SDK (sdk_symbol_api.hpp).
#include "framework/symbols/sdk_symbol_api.hpp"

TEST(SdkSymbolApi, ServiceAndLoaders) {
    auto service = ringscope::make_resolver_service();
    auto k = ringscope::parse_kallsyms("ffffffff81000000 T a\nffffffff81000010 T b\n", "inline");
    ASSERT_TRUE(k);
    service->add("guest", *k);
    auto s = service->lookup("guest", 0xffffffff81000004);
    ASSERT_TRUE(s);
    EXPECT_EQ(ringscope::ResolverService::format(*s, 0xffffffff81000004), "a+0x4");
    auto bad = ringscope::parse_kallsyms("zz\n", "inline");
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().to_string().rfind("inline:1:", 0), 0u) << bad.error().to_string();
    auto e = ringscope::load_symbol_file(SYMBOLS_FAKE_MODULE_OBJECT);
    ASSERT_TRUE(e) << e.error().to_string();
    EXPECT_NE((*e)->describe().find("[fake_mod]"), std::string::npos);
}
