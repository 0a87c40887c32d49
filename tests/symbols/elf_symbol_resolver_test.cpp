#include "framework/symbols/elf_symbol_resolver.hpp"

#include <gtest/gtest.h>
#include <link.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

using ringscope::Errc;
using ringscope::symbols::ElfLoadOptions;
using ringscope::symbols::ElfSymbolResolver;

extern "C" __attribute__((noinline, used)) int symbols_test_probe_function(int x) {
    return x * 7 + 3;
}

namespace {

std::string fake_module() {
    return SYMBOLS_FAKE_MODULE_OBJECT;
}

uint64_t main_program_bias() {
    uint64_t bias = 0;
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* data) {
            *static_cast<uint64_t*>(data) = info->dlpi_addr;
            return 1;  // the first entry is the main program
        },
        &bias);
    return bias;
}

}  // namespace

TEST(ElfSymbolResolver, RelocatableModuleWithoutLoadAddresses) {
    auto r = ElfSymbolResolver::open(fake_module());
    ASSERT_TRUE(r) << r.error().to_string();
    EXPECT_EQ((*r)->module(), "fake_mod");  // from .modinfo, not the file name
    // Offsets inside the object: fake_alpha is first in .text, at 0.
    auto s = (*r)->lookup(0);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->module, "fake_mod");
    EXPECT_GT(s->size, 0u);
    EXPECT_NE((*r)->describe().find("[fake_mod]"), std::string::npos);
}

TEST(ElfSymbolResolver, RelocatableModuleAtSectionAddresses) {
    ElfLoadOptions opts;
    opts.section_addrs[".text"] = 0xffffffffc0a00000;
    opts.section_addrs[".init.text"] = 0xffffffffc0b00000;
    auto r = ElfSymbolResolver::open(fake_module(), opts);
    ASSERT_TRUE(r) << r.error().to_string();
    auto alpha = (*r)->lookup(0xffffffffc0a00000);
    ASSERT_TRUE(alpha);
    EXPECT_EQ(alpha->name, "fake_alpha");
    EXPECT_EQ(alpha->start, 0xffffffffc0a00000u);
    // Inexact hit inside fake_alpha, and the end of its size is exclusive.
    auto in = (*r)->lookup(alpha->start + alpha->size - 1);
    ASSERT_TRUE(in);
    EXPECT_EQ(in->name, "fake_alpha");
    auto beta = (*r)->lookup(alpha->start + alpha->size + 8);
    ASSERT_TRUE(beta);
    EXPECT_EQ(beta->name, "fake_beta");
    auto init = (*r)->lookup(0xffffffffc0b00002);
    ASSERT_TRUE(init);
    EXPECT_EQ(init->name, "fake_init");
    EXPECT_EQ(init->start, 0xffffffffc0b00000u);
    // Before the first loaded symbol; .data was not given, so fake_counter is left out.
    EXPECT_FALSE((*r)->lookup(0xffffffffc09fffff));
    EXPECT_FALSE((*r)->lookup(0xffffffffc0b00000 + init->size));
}

TEST(ElfSymbolResolver, ExecutableWithBias) {
    ElfLoadOptions opts;
    opts.bias = main_program_bias();
    auto r = ElfSymbolResolver::open("/proc/self/exe", opts);
    ASSERT_TRUE(r) << r.error().to_string();
    uint64_t addr = reinterpret_cast<uint64_t>(&symbols_test_probe_function);
    auto s = (*r)->lookup(addr + 1);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->name, "symbols_test_probe_function");
    EXPECT_EQ(s->start, addr);
    EXPECT_TRUE(s->module.empty());
    EXPECT_EQ(symbols_test_probe_function(1), 10);
}

TEST(ElfSymbolResolver, ModuleOverride) {
    ElfLoadOptions opts;
    opts.module = "other";
    auto r = ElfSymbolResolver::open(fake_module(), opts);
    ASSERT_TRUE(r);
    EXPECT_EQ((*r)->lookup(0).value().module, "other");
}

TEST(ElfSymbolResolver, Errors) {
    auto missing = ElfSymbolResolver::open("/nonexistent/vmlinux");
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().code(), Errc::io);
    EXPECT_EQ(missing.error().file(), "/nonexistent/vmlinux");

    auto dir = std::filesystem::path(RINGSCOPE_BINARY_DIR) / "tests" / "data-symbols";
    std::filesystem::create_directories(dir);
    auto text = (dir / "not-elf.txt").string();
    std::ofstream(text) << "ffffffff81000000 T _text\n";
    auto bad = ElfSymbolResolver::open(text);
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().code(), Errc::bad_magic);

    // A truncated ELF: the header promises sections that are not there.
    std::ifstream in(fake_module(), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto cut = (dir / "truncated.o").string();
    std::ofstream(cut, std::ios::binary).write(bytes.data(), 80);
    auto t = ElfSymbolResolver::open(cut);
    EXPECT_FALSE(t);
}
