// trace-cmd 3.4's MODULES_FILE and LAST_BOOT_INFO sections: the parsers (every form the kernel's
// last_boot_info file has taken: 6.12's deltas, 6.14.5's KASLR offset, 6.15's _text and modules,
// "# Current"), the relocation of a previous boot's addresses, and the resolver report uses.
#include <gtest/gtest.h>

#include "boot_sections_data.hpp"
#include "framework/symbols/boot_relocation.hpp"
#include "framework/symbols/kallsyms_resolver.hpp"
#include "framework/symbols/kernel_sections_resolver.hpp"
#include "framework/symbols/last_boot_info.hpp"
#include "framework/symbols/module_list.hpp"

using namespace ringscope;
using namespace ringscope::symbols;

namespace {

using boot_sections_data::kKallsyms;
using boot_sections_data::kLastBoot615;
using boot_sections_data::kModules;

std::string name(const SymbolResolver& r, uint64_t addr) {
    auto s = r.lookup(addr);
    return s ? ResolverService::format(*s, addr) : std::string("<none>");
}

std::shared_ptr<const KallsymsResolver> kallsyms() {
    auto k = KallsymsResolver::parse(kKallsyms, "test");
    EXPECT_TRUE(k);
    return k ? *k : nullptr;
}

}  // namespace

TEST(BootSections, ModuleListReadsProcModules) {
    auto m = ModuleList::parse(kModules);
    ASSERT_TRUE(m) << m.error().to_string();
    ASSERT_EQ(m->modules().size(), 2u);  // the address-0 one says nothing
    EXPECT_EQ(m->modules()[0].name, "ext4");
    EXPECT_EQ(m->modules()[0].label, "[ext4]");
    EXPECT_EQ(m->modules()[0].size, 1064960u);
    EXPECT_EQ(m->find(0xffffffffc0a00000)->name, "ext4");
    EXPECT_EQ(m->find(0xffffffffc0a00000 + 1064959)->name, "ext4");
    EXPECT_EQ(m->find(0xffffffffc0a00000 + 1064960), nullptr);
    EXPECT_EQ(m->find(0xffffffffc0c00010)->name, "nosyms");
    EXPECT_EQ(m->find(0xffffffff9a001000), nullptr);
    EXPECT_EQ(m->by_name("nosyms")->address, 0xffffffffc0c00000u);
    EXPECT_EQ(m->by_name("hidden"), nullptr);
}

TEST(BootSections, ModuleListErrorsNameLineAndColumn) {
    auto short_line = ModuleList::parse("ext4 1064960 1 - Live 0xffffffffc0a00000\nbad 12\n");
    ASSERT_FALSE(short_line);
    EXPECT_EQ(short_line.error().code(), Errc::parse);
    EXPECT_EQ(short_line.error().line(), 2);
    auto bad_size = ModuleList::parse("ext4 12x 1 - Live 0xffffffffc0a00000\n");
    ASSERT_FALSE(bad_size);
    EXPECT_EQ(bad_size.error().line(), 1);
    EXPECT_EQ(bad_size.error().column(), 6);
    auto bad_addr = ModuleList::parse("ext4 12 1 - Live 0xzz\n");
    ASSERT_FALSE(bad_addr);
    EXPECT_EQ(bad_addr.error().column(), 18);
    EXPECT_TRUE(ModuleList::parse(""));  // no module loaded
}

TEST(BootSections, LastBootInfoEveryForm) {
    auto current = LastBootInfo::parse("# Current\n");
    ASSERT_TRUE(current);
    EXPECT_EQ(current->form, LastBootInfo::Form::current);
    EXPECT_FALSE(current->previous_boot());

    auto deltas = LastBootInfo::parse("text delta:\t-2013265920\ndata delta:\t4096\n");  // 6.12
    ASSERT_TRUE(deltas) << deltas.error().to_string();
    EXPECT_EQ(deltas->form, LastBootInfo::Form::text_delta);
    EXPECT_EQ(deltas->text_delta, -2013265920);
    EXPECT_EQ(deltas->data_delta, 4096);
    EXPECT_TRUE(deltas->previous_boot());
    auto zero = LastBootInfo::parse("text delta:\t0\ndata delta:\t0\n");  // 6.12 with this boot's data
    ASSERT_TRUE(zero);
    EXPECT_FALSE(zero->previous_boot());

    auto kaslr = LastBootInfo::parse("39000000\t[kernel]\n");  // 6.14.5
    ASSERT_TRUE(kaslr);
    EXPECT_EQ(kaslr->form, LastBootInfo::Form::kernel_address);
    EXPECT_EQ(kaslr->kernel, 0x39000000u);
    EXPECT_TRUE(kaslr->modules.empty());

    auto full = LastBootInfo::parse(kLastBoot615);  // 6.15
    ASSERT_TRUE(full) << full.error().to_string();
    EXPECT_EQ(full->kernel, 0xffffffff81000000u);
    ASSERT_EQ(full->modules.size(), 3u);  // by address
    EXPECT_EQ(full->modules[0].name, "ext4");
    EXPECT_EQ(full->modules[1].name, "nosyms");
    EXPECT_EQ(full->modules[2].label, "[gone_mod]");
    // the commit that added modules showed "[kernel]" after two tabs
    auto tabs = LastBootInfo::parse("10c00000\t\t[kernel]\nffffffffc00ca000\tusb_serial_simple\n");
    ASSERT_TRUE(tabs);
    EXPECT_EQ(tabs->modules.at(0).name, "usb_serial_simple");
}

TEST(BootSections, LastBootInfoErrors) {
    EXPECT_FALSE(LastBootInfo::parse(""));
    auto no_kernel = LastBootInfo::parse("ffffffffc0100000\text4\n");
    ASSERT_FALSE(no_kernel);
    EXPECT_EQ(no_kernel.error().code(), Errc::parse);
    auto bad_addr = LastBootInfo::parse("ffffffff81000000\t[kernel]\nzzzz\text4\n");
    ASSERT_FALSE(bad_addr);
    EXPECT_EQ(bad_addr.error().line(), 2);
    EXPECT_EQ(bad_addr.error().column(), 1);
    auto bad_delta = LastBootInfo::parse("text delta:\t12a\ndata delta:\t0\n");
    ASSERT_FALSE(bad_delta);
    EXPECT_EQ(bad_delta.error().line(), 1);
    EXPECT_EQ(bad_delta.error().column(), 13);
    EXPECT_FALSE(LastBootInfo::parse("text delta:\t1\nsomething else\n"));
}

TEST(BootSections, RelocationByTextDelta) {
    auto info = LastBootInfo::parse("text delta:\t417333248\ndata delta:\t0\n");  // 0x18e00000
    ASSERT_TRUE(info);
    auto r = BootRelocation::make(*info, std::nullopt, nullptr);  // needs no _text
    ASSERT_TRUE(r) << r.error().to_string();
    EXPECT_EQ(r->relocate(0xffffffff81001010).addr, 0xffffffff9a001010u - 0x200000u);
}

TEST(BootSections, RelocationByKaslrOffset) {
    // 6.14.5: the previous KASLR offset; this boot's is _text minus x86-64's default _text.
    auto info = LastBootInfo::parse("8000000\t[kernel]\n");
    ASSERT_TRUE(info);
    auto r = BootRelocation::make(*info, 0xffffffff9a000000, nullptr);
    ASSERT_TRUE(r) << r.error().to_string();
    EXPECT_EQ(r->kernel_delta(), 0x19000000 - 0x8000000);
    EXPECT_EQ(r->relocate(0xffffffff89001010).addr, 0xffffffff9a001010u);
    auto unknown = BootRelocation::make(*info, 0xa000000000000000, nullptr);
    ASSERT_FALSE(unknown);
    EXPECT_EQ(unknown.error().code(), Errc::unsupported);
}

TEST(BootSections, RelocationOfTextAndModules) {
    auto info = LastBootInfo::parse(kLastBoot615);
    auto mods = ModuleList::parse(kModules);
    ASSERT_TRUE(info && mods);
    EXPECT_EQ(BootRelocation::make(*info, std::nullopt, &*mods).error().code(), Errc::not_found);
    auto r = BootRelocation::make(*info, 0xffffffff9a000000, &*mods);
    ASSERT_TRUE(r) << r.error().to_string();
    EXPECT_EQ(r->relocate(0xffffffff81001010).addr, 0xffffffff9a001010u);  // core
    EXPECT_EQ(r->relocate(0xffffffffc0100410).addr, 0xffffffffc0a00410u);  // ext4 moved
    EXPECT_EQ(r->relocate(0xffffffffc0300040).addr, 0xffffffffc0c00040u);  // nosyms moved
    auto gone = r->relocate(0xffffffffc0500020);
    ASSERT_NE(gone.gone, nullptr);
    EXPECT_EQ(gone.gone->name, "gone_mod");
    EXPECT_EQ(gone.addr, 0xffffffffc0500020u);
    // past nosyms' 8192 bytes (and before gone_mod) is no module's: relocated as core
    EXPECT_EQ(r->relocate(0xffffffffc0302000).addr, 0xffffffffc0302000u + 0x19000000u);
}

TEST(BootSections, ResolverNamesRelocatedAddresses) {
    auto info = LastBootInfo::parse(kLastBoot615);
    auto mods = ModuleList::parse(kModules);
    ASSERT_TRUE(info && mods);
    auto table = kallsyms();
    auto r = BootRelocation::make(*info, table->address_of("_text"), &*mods);
    ASSERT_TRUE(r);
    KernelSectionsResolver k(table, *mods, *r);
    EXPECT_EQ(name(k, 0xffffffff81001010), "do_one+0x10");
    EXPECT_EQ(name(k, 0xffffffff81002000), "do_two");
    EXPECT_EQ(k.lookup(0xffffffff81002000)->start, 0xffffffff81002000u);  // in the recorded boot
    EXPECT_EQ(name(k, 0xffffffffc0100410), "ext4_fn2+0x10");
    EXPECT_EQ(name(k, 0xffffffffc0300040), "[nosyms]+0x40");
    EXPECT_EQ(name(k, 0xffffffffc0500020), "[gone_mod]+0x20");
    // the kallsyms alone name the wrong functions
    EXPECT_EQ(name(*table, 0xffffffff81001010), "<none>");
    EXPECT_EQ(name(*table, 0xffffffffc0100410), "do_two+0x260fe410");
}

TEST(BootSections, ModulesWithoutSymbolsNamedWithoutLastBoot) {
    auto mods = ModuleList::parse(kModules);
    ASSERT_TRUE(mods);
    auto table = kallsyms();
    KernelSectionsResolver k(table, *mods, std::nullopt);
    EXPECT_EQ(name(k, 0xffffffff9a001010), "do_one+0x10");
    EXPECT_EQ(name(k, 0xffffffffc0a00410), "ext4_fn2+0x10");
    EXPECT_EQ(name(k, 0xffffffffc0c00040), "[nosyms]+0x40");  // the kallsyms say ext4_end+0x1ff840
    EXPECT_EQ(name(*table, 0xffffffffc0c00040), "ext4_end+0x1ff840");
    KernelSectionsResolver no_kallsyms(nullptr, *mods, std::nullopt);
    EXPECT_EQ(name(no_kallsyms, 0xffffffffc0a00010), "[ext4]+0x10");
    EXPECT_EQ(name(no_kallsyms, 0xffffffff9a001010), "<none>");
}
