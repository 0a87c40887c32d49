// trace-cmd 3.4's kernel-file sections in what record and extract write (issue #24 item 3, the
// writing side): BTF_FILE holds /sys/kernel/btf/vmlinux byte for byte (as in the 3.4 recording of
// ../shared), MODULES_FILE /proc/modules, LAST_BOOT_INFO a boot-mapped instance's last_boot_info
// (this kernel has neither: fake /proc and tracefs folders). trace-cmd 3.1.6 still reads the files.
#include <cstdlib>
#include <cstring>

#include <gtest/gtest.h>

#include "framework/capture/kernel_sections.hpp"
#include "framework/io/trace_dat_reader.hpp"
#include "framework/io/trace_dat_writer.hpp"
#include "tracefs_test_util.hpp"

using namespace ringscope;
using namespace rs_tracefs_test;

namespace {

const std::string kRs = RINGSCOPE_BIN;

struct Section {
    uint16_t id = 0, flags = 0;
    std::string data;
};

// The sections the options of an uncompressed little-endian v7 FILE point to with option ID.
std::vector<Section> sections_of(const std::string& file, io::OptionId id) {
    std::vector<Section> out;
    auto rd = io::TraceDatReader::open(file);
    EXPECT_TRUE(rd) << rd.error().to_string();
    if (!rd) return out;
    const std::string bytes = read_file(file);
    for (const io::RawOption& o : rd->options().unknown) {
        if (o.id != static_cast<uint16_t>(id) || o.data.size() != 8) continue;
        uint64_t off = 0;
        std::memcpy(&off, o.data.data(), 8);
        Section s;
        uint64_t size = 0;
        if (off + 16 > bytes.size()) return out;
        std::memcpy(&s.id, bytes.data() + off, 2);
        std::memcpy(&s.flags, bytes.data() + off + 2, 2);
        std::memcpy(&size, bytes.data() + off + 8, 8);
        if (off + 16 + size > bytes.size()) return out;
        s.data = bytes.substr(off + 16, size);
        out.push_back(std::move(s));
    }
    return out;
}

void put(const std::string& path, const std::string& text) {
    sh("mkdir -p \"$(dirname '" + path + "')\"");
    FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr) << path;
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
}

}  // namespace

TEST(KernelSections, RecordStoresTheKernelBtfAsTraceCmd34Does) {
    const std::string btf = read_file("/sys/kernel/btf/vmlinux");
    if (btf.empty()) GTEST_SKIP() << "this kernel has no /sys/kernel/btf/vmlinux";
    REQUIRE_TRACEFS(root);
    TracefsLock lock;
    const std::string dir = scratch_dir("kernel_sections_btf");
    for (const char* comp : {"none", "zstd"}) {
        SCOPED_TRACE(comp);
        const std::string f = dir + "/" + comp + ".dat";
        ASSERT_EQ(sh(kRs + " record -q --compression " + comp + " -e sched:sched_switch -o " + f +
                     " -- true 2> " + f + ".err"),
                  0)
            << read_file(f + ".err");
        if (std::string(comp) == "none") {
            const auto s = sections_of(f, io::OptionId::btf_file);
            ASSERT_EQ(s.size(), 1u);
            EXPECT_EQ(s[0].id, 23);
            EXPECT_EQ(s[0].flags, 0);
            EXPECT_TRUE(s[0].data == btf) << "the BTF section is not /sys/kernel/btf/vmlinux";
        } else {
            auto rd = io::TraceDatReader::open(f);
            ASSERT_TRUE(rd) << rd.error().to_string();
            size_t n = 0;
            for (const auto& o : rd->options().unknown) n += o.id == 23;
            EXPECT_EQ(n, 1u);
        }
        // Debian's trace-cmd skips the section and prints what ringscope prints.
        ASSERT_EQ(sh(kRs + " report -N " + f + " > " + f + ".rs 2>/dev/null"), 0);
        if (have_trace_cmd()) {
            ASSERT_EQ(sh("trace-cmd report -N " + f + " > " + f + ".tc 2>/dev/null"), 0);
            EXPECT_EQ(read_file(f + ".tc"), read_file(f + ".rs"));
        }
    }
}

TEST(KernelSections, ModulesAndLastBootInfoFromFakeRoots) {
    const std::string dir = scratch_dir("kernel_sections_fake");
    const std::string tfs = dir + "/tracefs", proc = dir + "/proc", sys = dir + "/sys";
    const std::string modules =
        "usb_serial_simple 16384 0 - Live 0xffffffffc00ca000\nusbserial 45056 1 usb_serial_simple, Live "
        "0xffffffffc00ae000\n";
    const std::string last_boot = "39000000\t[kernel]\nffffffffc00ca000\tusb_serial_simple\n";
    put(proc + "/modules", modules);
    put(sys + "/kernel/btf/vmlinux", std::string("\x9f\xeb\x01\x00\0\0btf", 9));
    put(tfs + "/instances/boot_mapped/last_boot_info", last_boot);
    put(tfs + "/instances/now/last_boot_info", "# Current\n");
    ::setenv("RINGSCOPE_PROC", proc.c_str(), 1);
    ::setenv("RINGSCOPE_SYSFS", sys.c_str(), 1);
    auto boot = tracefs::Instance::open("boot_mapped", tfs);
    auto now = tracefs::Instance::open("now", tfs);
    ASSERT_TRUE(boot && now);
    io::TraceMetadata meta;
    capture::add_kernel_sections(meta, {&*now, &*boot});
    ::unsetenv("RINGSCOPE_PROC");
    ::unsetenv("RINGSCOPE_SYSFS");
    ASSERT_EQ(meta.extra_sections.size(), 3u);  // the "# Current" instance has nothing to relocate

    io::WriterConfig cfg;
    cfg.compression = io::Compression::none;
    const std::string f = dir + "/fake.dat";
    auto w = io::TraceDatWriter::create(f, cfg, meta, {{"", "local", 4096, {0}}});
    ASSERT_TRUE(w) << w.error().to_string();
    ASSERT_TRUE((*w)->begin_cpu());
    ASSERT_TRUE((*w)->end_cpu());
    ASSERT_TRUE((*w)->finish());
    const auto btf = sections_of(f, io::OptionId::btf_file);
    const auto lbi = sections_of(f, io::OptionId::last_boot_info);
    const auto mods = sections_of(f, io::OptionId::modules_file);
    ASSERT_EQ(btf.size(), 1u);
    ASSERT_EQ(lbi.size(), 1u);
    ASSERT_EQ(mods.size(), 1u);
    EXPECT_EQ(btf[0].data, std::string("\x9f\xeb\x01\x00\0\0btf", 9));
    EXPECT_EQ(lbi[0].id, 24);
    EXPECT_EQ(lbi[0].data, last_boot);
    EXPECT_EQ(mods[0].id, 25);
    EXPECT_EQ(mods[0].data, modules);
}
