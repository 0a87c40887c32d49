// `report` of a trace that carries trace-cmd 3.4's MODULES_FILE and LAST_BOOT_INFO sections,
// written here by the project's writer: function events a boot-mapped instance recorded in the
// previous boot (before KASLR moved the kernel and the modules loaded elsewhere). ../shared holds no
// trace with these sections (its 3.4 recording ran on a kernel without /proc/modules or a
// boot-mapped instance) and no trace-cmd 3.4 output of one: the 3.4 lines are the relocation the
// kernel's own last_boot_info describes; the 3.1 lines are checked against trace-cmd 3.1.6 run
// here, which ignores both sections.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "boot_sections_data.hpp"
#include "fgraph_formats.hpp"
#include "framework/engine/trace_file.hpp"
#include "framework/io/trace_dat_reader.hpp"
#include "framework/io/trace_dat_writer.hpp"
#include "support/shell_command.hpp"

using namespace ringscope;

namespace {

using boot_sections_data::kKallsyms;
using boot_sections_data::kModules;
constexpr const char* kLastBoot = boot_sections_data::kLastBoot615;

struct Call {
    uint64_t ip, parent;
};
// Addresses of the previous boot.
const std::vector<Call> kCalls = {{0xffffffff81001010, 0xffffffff81002000},
                                  {0xffffffffc0100410, 0xffffffff81001000},
                                  {0xffffffffc0300040, 0xffffffffc0500020}};

fgraph_tool::Flavour flavour() {
    for (auto& f : fgraph_tool::flavours())
        if (f.name == "x86_64-5.x") return f;
    ADD_FAILURE() << "no x86_64-5.x flavour";
    return fgraph_tool::flavours().front();
}

void put(std::vector<uint8_t>& p, size_t off, uint64_t v, size_t n) {
    std::memcpy(p.data() + off, &v, n);
}

std::vector<uint8_t> page(const fgraph_tool::EventDef& fn) {
    std::vector<uint8_t> pg(4096, 0);
    put(pg, 0, 5000000000000ull, 8);
    size_t pos = 16;
    for (const Call& c : kCalls) {
        std::vector<uint8_t> p(fn.payload_size, 0);
        put(p, 0, fn.id, 2);
        put(p, 4, 1234, 4);
        put(p, fn.field("ip")->offset, c.ip, 8);
        put(p, fn.field("parent_ip")->offset, c.parent, 8);
        put(pg, pos, static_cast<uint32_t>(p.size() / 4) | (1000u << 5), 4);
        std::memcpy(pg.data() + pos + 4, p.data(), p.size());
        pos += 4 + p.size();
    }
    put(pg, 8, pos - 16, 8);
    return pg;
}

std::string write_trace(const std::string& name, const std::string& modules, const std::string& last_boot) {
    const fgraph_tool::Flavour fl = flavour();
    io::TraceMetadata meta;
    meta.header_page = fgraph_tool::header_page(8);
    meta.header_event = fgraph_tool::header_event();
    meta.ftrace_formats = {fl.function.text()};
    meta.kallsyms = kKallsyms;
    meta.saved_cmdlines = "1234 bash\n";
    meta.cpu_count = 1;
    if (!last_boot.empty())
        meta.extra_sections.push_back({io::OptionId::last_boot_info, "last boot info", last_boot});
    if (!modules.empty()) meta.extra_sections.push_back({io::OptionId::modules_file, "modules", modules});
    const std::string path = std::string(RINGSCOPE_BINARY_DIR) + "/tests/boot-sections-" + name + ".dat";
    auto w = io::TraceDatWriter::create(path, io::WriterConfig{}, std::move(meta),
                                        {io::BufferSpec{"boot_mapped", "local", 4096, {0}}});
    EXPECT_TRUE(w) << w.error().to_string();
    if (!w) return path;
    EXPECT_TRUE((*w)->begin_cpu());
    EXPECT_TRUE((*w)->write_pages(page(fl.function)));
    EXPECT_TRUE((*w)->end_cpu());
    EXPECT_TRUE((*w)->finish());
    return path;
}

test::ShellResult run(const std::string& cmd) {
    return test::run_shell("env -i PATH=/usr/bin:/bin HOME=/nonexistent LC_ALL=C " + cmd);
}

std::string report(const std::string& args, const std::string& redirect = "") {
    const auto r = run(std::string(RINGSCOPE_BINARY_DIR) + "/ringscope report " + args + " " + redirect);
    EXPECT_EQ(r.status, 0) << r.out;
    return r.out;
}

}  // namespace

// With -O offset and parent: ip do_one+0x10 and its parent, an ext4 function (ext4 loaded 9 MiB
// higher in this boot), a module whose symbols the kallsyms lack, and one this boot has not loaded.
const char* const kRelocated34 =
    "cpus=1\n"
    "boot_mapped:             bash-1234  [000] .....  5000.000001: function:             do_one+0x10  <-- "
    "do_two+0x0 \n"
    "boot_mapped:             bash-1234  [000] .....  5000.000002: function:                ext4_fn2+0x10  "
    "<-- "
    "do_one+0x0 \n"
    "boot_mapped:             bash-1234  [000] .....  5000.000003: function:             [nosyms]+0x40  <-- "
    "[gone_mod]+0x20 \n";

TEST(BootSectionsReport, PreviousBootRelocatedAsTraceCmd34) {
    const std::string file = write_trace("relocated", kModules, kLastBoot);
    EXPECT_EQ(report("--compat 3.4 -O offset -O parent " + file), kRelocated34);
    EXPECT_EQ(report("--compat 3.4 " + file, "2>&1 >/dev/null"), "");  // nothing to say
}

// trace-cmd 3.1.6 reads neither section: the previous boot's core addresses fall below this boot's
// _text, and the module addresses inside the gap before this boot's modules.
TEST(BootSectionsReport, TraceCmd31IgnoresTheSections) {
    const std::string file = write_trace("ignored", kModules, kLastBoot);
    const std::string ours = report("--compat 3.1 -O offset -O parent " + file);
    EXPECT_EQ(
        ours,
        "cpus=1\n"
        "boot_mapped:             bash-1234  [000]  5000.000001: function:             0xffffffff81001010 "
        "<-- 0xffffffff81002000\n"
        "boot_mapped:             bash-1234  [000]  5000.000002: function:             do_two+0x260fe410  "
        "<-- 0xffffffff81001000\n"
        "boot_mapped:             bash-1234  [000]  5000.000003: function:             do_two+0x262fe040  "
        "<-- do_two+0x264fe020 \n");
    if (test::run_shell("command -v trace-cmd >/dev/null").status != 0)
        GTEST_SKIP() << "trace-cmd not installed";
    EXPECT_EQ(run("trace-cmd report -O offset -O parent " + file).out, ours);
}

// A MODULES_FILE that does not parse: one line naming the file and the section's offset, and the
// rest as without it: LAST_BOOT_INFO still relocates the core, and with no list of where this boot
// loaded the previous boot's modules, addresses in those are named by their module.
TEST(BootSectionsReport, BadSectionIsOneLineAndTheTraceReads) {
    const std::string file = write_trace("bad", "ext4 12x 1 - Live 0xffffffffc0a00000\n", kLastBoot);
    const std::string err = report("--compat 3.4 " + file, "2>&1 >/dev/null");
    EXPECT_EQ(err.rfind("ringscope: " + file + ": offset ", 0), 0u) << err;
    EXPECT_NE(err.find("): MODULES_FILE section (option 25): line 1, column 6: module size '12x' is not a "
                       "number; not used\n"),
              std::string::npos)
        << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1);
    EXPECT_EQ(
        report("--compat 3.4 -O offset -O parent " + file),
        "cpus=1\n"
        "boot_mapped:             bash-1234  [000] .....  5000.000001: function:             do_one+0x10  "
        "<-- do_two+0x0 \n"
        "boot_mapped:             bash-1234  [000] .....  5000.000002: function:                "
        "[ext4]+0x410  <-- do_one+0x0 \n"
        "boot_mapped:             bash-1234  [000] .....  5000.000003: function:             "
        "[nosyms]+0x40  <-- [gone_mod]+0x20 \n");
}

TEST(BootSectionsReport, CopiesKeepTheSections) {
    const std::string file = write_trace("copy-src", kModules, kLastBoot);
    auto r = io::TraceDatReader::open(file);
    ASSERT_TRUE(r) << r.error().to_string();
    const std::string copy = std::string(RINGSCOPE_BINARY_DIR) + "/tests/boot-sections-copy.dat";
    ASSERT_TRUE(io::write_trace_dat_copy(*r, copy, io::WriterConfig{}));
    auto c = io::TraceDatReader::open(copy);
    ASSERT_TRUE(c) << c.error().to_string();
    auto mods = c->option_section(io::OptionId::modules_file);
    auto boot = c->option_section(io::OptionId::last_boot_info);
    ASSERT_TRUE(mods && boot);
    EXPECT_EQ(mods->value_or(""), kModules);
    EXPECT_EQ(boot->value_or(""), kLastBoot);
}
