// `report` of function and function_graph records that carry their arguments (6.16's args[]),
// on traces written here with the formats of this machine's kernel (6.18) and a BTF section built
// here: trace-cmd 3.4 prints the arguments between the function's parentheses from BTF, in hex
// without it; 3.1.6 knows nothing of them. No trace-cmd 3.4 linked with libtraceevent 1.9 was
// available (../shared/conformance/trace-cmd-3.4/README.md): the expected lines follow the
// sources (tep_btf_print_args), not a binary's output.
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>

#include <gtest/gtest.h>

#include "btf_builder.hpp"
#include "fgraph_formats.hpp"
#include "framework/engine/trace_file.hpp"
#include "framework/io/trace_dat_writer.hpp"
#include "support/shell_command.hpp"

using namespace ringscope;
using btf_test::BtfBuilder;

namespace {

const char* const kSymbols[] = {"do_sys_openat2", "ksys_read", "vfs_read", "vfs_read.isra.0",
                                "kfree",          "zz_nobtf",  "zz_end"};
constexpr uint64_t kBase = 0xffffffff81000000ull;

uint64_t addr(const std::string& name) {
    for (size_t i = 0; i < std::size(kSymbols); ++i)
        if (name == kSymbols[i]) return kBase + i * 0x200;
    return 0;
}

std::string kernel_btf() {
    BtfBuilder b;
    const uint32_t i32 = b.int_type("int", 32, true);
    const uint32_t ul = b.int_type("long unsigned int", 64, false);
    const uint32_t ll = b.int_type("long long int", 64, true);
    const uint32_t chr = b.int_type("char", 8, true);
    b.func("vfs_read", b.proto(b.typedef_("ssize_t", ll), {{"file", b.ptr(b.struct_("file", 232))},
                                                           {"buf", b.ptr(chr)},
                                                           {"count", b.typedef_("size_t", ul)},
                                                           {"pos", b.ptr(b.typedef_("loff_t", ll))}}));
    b.func("do_sys_openat2", b.proto(ll, {{"dfd", i32},
                                          {"filename", b.ptr(b.const_(chr))},
                                          {"how", b.ptr(b.struct_("open_how", 24))}}));
    b.func("kfree", b.proto(0, {{"objp", b.ptr(b.const_(0))}}));
    return b.blob();
}

struct Rec {
    uint64_t t;  // ns after the base
    const fgraph_tool::EventDef* ev;
    std::string func, parent;
    uint32_t depth = 0;
    std::vector<uint64_t> args;
    uint64_t duration = 0;  // exits
};

void put(std::vector<uint8_t>& p, size_t off, uint64_t v, size_t n) {
    std::memcpy(p.data() + off, &v, n);
}

std::vector<uint8_t> payload(const Rec& r) {
    std::vector<uint8_t> p(r.ev->payload_size, 0);
    put(p, 0, r.ev->id, 2);
    put(p, 4, 1234, 4);
    auto set = [&](const char* name, uint64_t v) {
        if (const auto* f = r.ev->field(name)) put(p, f->offset, v, f->size);
    };
    set("ip", addr(r.func));
    set("parent_ip", addr(r.parent));
    set("func", addr(r.func));
    set("depth", r.depth);
    set("rettime", 5000000000000ull + r.t);
    set("calltime", 5000000000000ull + r.t - r.duration);
    for (uint64_t a : r.args) {
        p.resize(p.size() + 8);
        put(p, p.size() - 8, a, 8);
    }
    return p;
}

// One CPU, one page: the story of the test, as the kernel lays records out.
std::vector<uint8_t> page_of(const std::vector<Rec>& recs) {
    std::vector<uint8_t> page(4096, 0);
    put(page, 0, 5000000000000ull, 8);
    size_t pos = 16;
    uint64_t prev = 0;
    for (const Rec& r : recs) {
        const std::vector<uint8_t> p = payload(r);
        const uint32_t header =
            static_cast<uint32_t>(p.size() / 4) | static_cast<uint32_t>((r.t - prev) << 5);
        put(page, pos, header, 4);
        std::memcpy(page.data() + pos + 4, p.data(), p.size());
        pos += 4 + p.size();
        prev = r.t;
    }
    put(page, 8, pos - 16, 8);
    return page;
}

std::string write_trace(const std::string& name, const std::string& btf_section) {
    const fgraph_tool::Flavour fl = fgraph_tool::flavours().back();  // 6.18: args[] in both formats
    const auto* fn = &fl.function;
    const auto* entry = &fl.entry;
    const auto* exit = &fl.exit;
    const std::vector<uint64_t> six = {1, 2, 3, 4, 5, 6};
    const std::vector<Rec> recs = {
        {1000,
         fn,
         "vfs_read",
         "ksys_read",
         0,
         {0xffff888100a0b000, 0x7ffd12345000, 0x1000, 0xffffc90000457e28, 0, 0}},
        {2000, fn, "kfree", "ksys_read", 0, {}},
        {3000,
         entry,
         "do_sys_openat2",
         "",
         0,
         {static_cast<uint64_t>(-100), 0x7ffd0000, 0xffffc90000457f00, 0, 0, 0}},
        {3100, entry, "kfree", "", 1, {0xffff888100001000, 0, 0, 0, 0, 0}},
        {3200, exit, "kfree", "", 1, {}, 100},
        {3300, entry, "zz_nobtf", "", 1, six},
        {3400, entry, "vfs_read.isra.0", "", 2, six},
        {3500, entry, "kfree", "", 3, {}},
        {3600, exit, "kfree", "", 3, {}, 100},
        {3700, exit, "vfs_read.isra.0", "", 2, {}, 300},
        {3800, exit, "zz_nobtf", "", 1, {}, 500},
        {3900, exit, "do_sys_openat2", "", 0, {}, 900},
    };
    io::TraceMetadata meta;
    meta.header_page = fgraph_tool::header_page(8);
    meta.header_event = fgraph_tool::header_event();
    meta.ftrace_formats = {fn->text(), exit->text(), entry->text()};
    for (const char* s : kSymbols) {
        char line[128];
        std::snprintf(line, sizeof line, "%016llx T %s\n", static_cast<unsigned long long>(addr(s)), s);
        meta.kallsyms += line;
    }
    meta.saved_cmdlines = "1234 bash\n";
    meta.cpu_count = 1;
    if (!btf_section.empty()) meta.extra_sections.push_back({io::OptionId::btf_file, "BTF", btf_section});
    const std::string path = std::string(RINGSCOPE_BINARY_DIR) + "/tests/btf-" + name + ".dat";
    auto w = io::TraceDatWriter::create(path, io::WriterConfig{}, std::move(meta),
                                        {io::BufferSpec{"", "local", 4096, {0}}});
    EXPECT_TRUE(w) << w.error().to_string();
    if (!w) return path;
    const std::vector<uint8_t> page = page_of(recs);
    EXPECT_TRUE((*w)->begin_cpu());
    EXPECT_TRUE((*w)->write_pages(page));
    EXPECT_TRUE((*w)->end_cpu());
    EXPECT_TRUE((*w)->finish());
    return path;
}

// What `ringscope report ARGS` prints on stdout, or with REDIRECT "2>&1 >/dev/null" on stderr.
std::string report(const std::string& args, const std::string& redirect = "") {
    const auto r =
        test::run_shell(std::string(RINGSCOPE_BINARY_DIR) + "/ringscope report " + args + " " + redirect);
    EXPECT_EQ(r.status, 0) << r.out;
    return r.out;
}

}  // namespace

TEST(BtfReport, ArgumentsFromBtfAsTraceCmd34) {
    const std::string file = write_trace("args", kernel_btf());
    EXPECT_EQ(report("--compat 3.4 " + file),
              "cpus=1\n"
              "            bash-1234  [000] .....  5000.000001: function:             "
              "vfs_read(file=0xffff888100a0b000, buf=0x7ffd12345000, count=0x1000, pos=0xffffc90000457e28)\n"
              "            bash-1234  [000] .....  5000.000002: function:             kfree\n"
              "            bash-1234  [000] .....  5000.000003: funcgraph_entry:                   |  "
              "do_sys_openat2(dfd=4294967196, filename=0x7ffd0000, how=0xffffc90000457f00) {\n"
              "            bash-1234  [000] .....  5000.000003: funcgraph_entry:        0.100 us   |    "
              "kfree(objp=0xffff888100001000);\n"
              "            bash-1234  [000] .....  5000.000003: funcgraph_entry:                   |    "
              "zz_nobtf(1, 2, 3, 4, 5, 6) {\n"
              "            bash-1234  [000] .....  5000.000003: funcgraph_entry:                   |      "
              "vfs_read.isra.0(file=0x1, buf=0x2, count=0x3, pos=0x4) {\n"
              "            bash-1234  [000] .....  5000.000004: funcgraph_entry:        0.100 us   |        "
              "kfree();\n"
              "            bash-1234  [000] .....  5000.000004: funcgraph_exit:         0.300 us   |      }\n"
              "            bash-1234  [000] .....  5000.000004: funcgraph_exit:         0.500 us   |    }\n"
              "            bash-1234  [000] .....  5000.000004: funcgraph_exit:         0.900 us   |  }\n");
}

// No BTF section, or one that does not load (said once on stderr): every value in hex.
TEST(BtfReport, ArgumentsInHexWithoutBtf) {
    const std::string expected =
        "cpus=1\n"
        "            bash-1234  [000] .....  5000.000001: function:             vfs_read(ffff888100a0b000, "
        "7ffd12345000, 1000, ffffc90000457e28, 0, 0)\n"
        "            bash-1234  [000] .....  5000.000002: function:             kfree\n"
        "            bash-1234  [000] .....  5000.000003: funcgraph_entry:                   |  "
        "do_sys_openat2(ffffffffffffff9c, 7ffd0000, ffffc90000457f00, 0, 0, 0) {\n"
        "            bash-1234  [000] .....  5000.000003: funcgraph_entry:        0.100 us   |    "
        "kfree(ffff888100001000, 0, 0, 0, 0, 0);\n"
        "            bash-1234  [000] .....  5000.000003: funcgraph_entry:                   |    "
        "zz_nobtf(1, 2, 3, 4, 5, 6) {\n"
        "            bash-1234  [000] .....  5000.000003: funcgraph_entry:                   |      "
        "vfs_read.isra.0(1, 2, 3, 4, 5, 6) {\n"
        "            bash-1234  [000] .....  5000.000004: funcgraph_entry:        0.100 us   |        "
        "kfree();\n"
        "            bash-1234  [000] .....  5000.000004: funcgraph_exit:         0.300 us   |      }\n"
        "            bash-1234  [000] .....  5000.000004: funcgraph_exit:         0.500 us   |    }\n"
        "            bash-1234  [000] .....  5000.000004: funcgraph_exit:         0.900 us   |  }\n";
    EXPECT_EQ(report("--compat 3.4 " + write_trace("args-nobtf", "")), expected);
    std::string swapped = kernel_btf();
    std::swap(swapped[0], swapped[1]);
    const std::string file = write_trace("args-badbtf", swapped);
    EXPECT_EQ(report("--compat 3.4 " + file), expected);
    EXPECT_EQ(report("--compat 3.4 " + file, "2>&1 >/dev/null"),
              "ringscope: " + file +
                  ": BTF section not used: BTF: byte order is not this machine's (byte 0 of the section)\n");
}

TEST(BtfReport, TraceCmd31PrintsNoArguments) {
    const std::string file = write_trace("args-31", kernel_btf());
    EXPECT_EQ(
        report("--compat 3.1 " + file),
        "cpus=1\n"
        "            bash-1234  [000]  5000.000001: function:             vfs_read\n"
        "            bash-1234  [000]  5000.000002: function:             kfree\n"
        "            bash-1234  [000]  5000.000003: funcgraph_entry:                   |  do_sys_openat2() "
        "{\n"
        "            bash-1234  [000]  5000.000003: funcgraph_entry:        0.100 us   |    kfree();\n"
        "            bash-1234  [000]  5000.000003: funcgraph_entry:                   |    zz_nobtf() {\n"
        "            bash-1234  [000]  5000.000003: funcgraph_entry:                   |      "
        "vfs_read.isra.0() {\n"
        "            bash-1234  [000]  5000.000004: funcgraph_entry:        0.100 us   |        kfree();\n"
        "            bash-1234  [000]  5000.000004: funcgraph_exit:         0.300 us   |      }\n"
        "            bash-1234  [000]  5000.000004: funcgraph_exit:         0.500 us   |    }\n"
        "            bash-1234  [000]  5000.000004: funcgraph_exit:         0.900 us   |  }\n");
}

// The engine does not print: a BTF section that does not load is a diagnostic the command prints
// (report: on stderr after the events), set by the first function whose arguments print.
TEST(BtfReport, SectionNotUsedIsADiagnosticNotAPrint) {
    std::string swapped = kernel_btf();
    std::swap(swapped[0], swapped[1]);
    const std::string path = write_trace("args-diagnostic", swapped);
    auto file = engine::TraceFile::open(path, engine::OpenOptions{});
    ASSERT_TRUE(file) << file.error().to_string();
    EXPECT_EQ((*file)->btf_diagnostic(), "");
    const uint64_t values[2] = {0x10, 0x20};
    TextBuffer out;
    testing::internal::CaptureStderr();
    (*file)->print_function_args({reinterpret_cast<const uint8_t*>(values), sizeof values}, 2, 8, "kfree",
                                 out);
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
    EXPECT_EQ(out.view(), "10, 20");
    EXPECT_EQ((*file)->btf_diagnostic(),
              path + ": BTF section not used: BTF: byte order is not this machine's (byte 0 of the section)");
    // without a BTF section there is nothing to say
    auto plain = engine::TraceFile::open(write_trace("args-diagnostic-none", ""), engine::OpenOptions{});
    ASSERT_TRUE(plain) << plain.error().to_string();
    (*plain)->print_function_args({reinterpret_cast<const uint8_t*>(values), sizeof values}, 2, 8, "kfree",
                                  out);
    EXPECT_EQ((*plain)->btf_diagnostic(), "");
}
