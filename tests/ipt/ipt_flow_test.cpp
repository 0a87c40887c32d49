// The pieces of `ipt flow`: the image (raw sections, overlays, ELF segments), the instruction
// classification, and the flow of small hand-made traces against what ptxed prints for them.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <elf.h>
#include <gtest/gtest.h>

#include "ipt/errors.hpp"
#include "ipt/flow.hpp"
#include "ipt/image.hpp"
#include "ipt/insn_class.hpp"
#include "ipt_test_bytes.hpp"

using namespace ringscope::ipt;
namespace fs = std::filesystem;

namespace {

using namespace ipt_test;

fs::path write_temp(const std::string& name, const Bytes& bytes) {
    fs::path p = fs::temp_directory_path() / ("ringscope-ipt-flow-" + std::to_string(getpid()) + "-" + name);
    std::ofstream(p, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return p;
}

TEST(IptImage, ParseRaw) {
    std::string path;
    uint64_t off = 9, size = 9, addr = 0;
    ASSERT_TRUE(Image::parse_raw("a.bin:0x1000", path, off, size, addr).ok());
    EXPECT_EQ(path, "a.bin");
    EXPECT_EQ(off, 0u);
    EXPECT_EQ(size, 0u);
    EXPECT_EQ(addr, 0x1000u);
    ASSERT_TRUE(Image::parse_raw("a.bin:0x2:0x1002", path, off, size, addr).ok());
    EXPECT_EQ(path, "a.bin");
    EXPECT_EQ(off, 2u);
    EXPECT_EQ(addr, 0x1002u);
    ASSERT_TRUE(Image::parse_raw("a.bin:2-6:4096", path, off, size, addr).ok());
    EXPECT_EQ(off, 2u);
    EXPECT_EQ(size, 4u);
    EXPECT_EQ(addr, 4096u);
    // A ':' that starts no range is part of the name.
    ASSERT_TRUE(Image::parse_raw("dir:x/a.bin:0x10", path, off, size, addr).ok());
    EXPECT_EQ(path, "dir:x/a.bin");
    EXPECT_FALSE(Image::parse_raw("a.bin", path, off, size, addr).ok());
    EXPECT_FALSE(Image::parse_raw("a.bin:6-2:0x10", path, off, size, addr).ok());
}

TEST(IptImage, LaterSectionsCoverEarlierOnes) {
    Image image;
    const Bytes low = {1, 2, 3, 4, 5, 6, 7, 8};
    const Bytes high = {0xa, 0xb};
    image.add_bytes(low.data(), low.size(), 0x1000, "low");
    image.add_bytes(high.data(), high.size(), 0x1003, "high");
    uint8_t buf[16] = {};
    int isid = 0;
    ASSERT_EQ(image.read(0x1001, buf, sizeof buf, &isid), 7);
    EXPECT_EQ(isid, 1);
    EXPECT_EQ(Bytes(buf, buf + 7), (Bytes{2, 3, 0xa, 0xb, 6, 7, 8}));
    ASSERT_EQ(image.read(0x1004, buf, 1, &isid), 1);
    EXPECT_EQ(isid, 2);
    EXPECT_EQ(buf[0], 0xb);
    EXPECT_EQ(image.read(0x0fff, buf, 4), -pte_nomap);
    EXPECT_EQ(image.read(0x1008, buf, 4), -pte_nomap);
}

TEST(IptImage, RawFileRange) {
    fs::path p = write_temp("raw.bin", {0x10, 0x11, 0x12, 0x13, 0x14});
    Image image;
    ASSERT_TRUE(image.add_raw(p.string(), 1, 3, 0x2000).ok());
    uint8_t buf[8] = {};
    ASSERT_EQ(image.read(0x2000, buf, sizeof buf), 3);
    EXPECT_EQ(Bytes(buf, buf + 3), (Bytes{0x11, 0x12, 0x13}));
    ringscope::Status past = image.add_raw(p.string(), 3, 9, 0);
    EXPECT_FALSE(past.ok());
    EXPECT_NE(past.error().to_string().find(p.string()), std::string::npos);
    fs::remove(p);
}

// A minimal ELF64: one PT_LOAD of `code` at vaddr, then a PT_NOTE that is not loaded.
Bytes make_elf(const Bytes& code, uint64_t vaddr) {
    Elf64_Ehdr eh{};
    std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
    eh.e_ident[EI_CLASS] = ELFCLASS64;
    eh.e_ident[EI_DATA] = ELFDATA2LSB;
    eh.e_ident[EI_VERSION] = EV_CURRENT;
    eh.e_type = ET_EXEC;
    eh.e_machine = EM_X86_64;
    eh.e_version = EV_CURRENT;
    eh.e_phoff = sizeof eh;
    eh.e_ehsize = sizeof eh;
    eh.e_phentsize = sizeof(Elf64_Phdr);
    eh.e_phnum = 2;
    Elf64_Phdr load{}, note{};
    load.p_type = PT_LOAD;
    load.p_offset = sizeof eh + 2 * sizeof(Elf64_Phdr);
    load.p_vaddr = load.p_paddr = vaddr;
    load.p_filesz = load.p_memsz = code.size();
    note.p_type = PT_NOTE;
    Bytes out(reinterpret_cast<const uint8_t*>(&eh), reinterpret_cast<const uint8_t*>(&eh) + sizeof eh);
    out.insert(out.end(), reinterpret_cast<const uint8_t*>(&load),
               reinterpret_cast<const uint8_t*>(&load + 1));
    out.insert(out.end(), reinterpret_cast<const uint8_t*>(&note),
               reinterpret_cast<const uint8_t*>(&note + 1));
    out.insert(out.end(), code.begin(), code.end());
    return out;
}

TEST(IptImage, ElfSegments) {
    const Bytes code = {0x90, 0x90, 0xc3};
    fs::path p = write_temp("a.elf", make_elf(code, 0x401000));
    uint8_t buf[4] = {};
    Image at_vaddr;
    ASSERT_TRUE(at_vaddr.add_elf(p.string(), false, 0).ok());
    ASSERT_EQ(at_vaddr.read(0x401000, buf, sizeof buf), 3);
    EXPECT_EQ(Bytes(buf, buf + 3), code);
    Image moved;
    ASSERT_TRUE(moved.add_elf(p.string(), true, 0x7000).ok());
    EXPECT_EQ(moved.read(0x401000, buf, 1), -pte_nomap);
    ASSERT_EQ(moved.read(0x7002, buf, 1), 1);
    EXPECT_EQ(buf[0], 0xc3);
    fs::path bad = write_temp("bad.elf", {0x7f, 'E', 'L', 'X', 0, 0});
    ringscope::Status s = Image().add_elf(bad.string(), false, 0);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().to_string().find(bad.string()), std::string::npos);
    fs::remove(p);
    fs::remove(bad);
}

struct ClassCase {
    Bytes bytes;
    ExecMode mode;
    InsnClass iclass;
    uint8_t size;
    bool direct;
    int32_t displacement;
    InsnKind kind;
};

TEST(IptInsnClass, LibiptClasses) {
    const std::vector<ClassCase> cases = {
        {{0x90}, em_64bit, InsnClass::other, 1, false, 0, InsnKind::plain},
        {{0xe8, 0x10, 0x00, 0x00, 0x00}, em_64bit, InsnClass::call, 5, true, 0x10, InsnKind::plain},
        {{0xe8, 0x00, 0x00, 0x00, 0x00}, em_64bit, InsnClass::call, 5, true, 0, InsnKind::plain},
        {{0xff, 0xd0}, em_64bit, InsnClass::call, 2, false, 0, InsnKind::plain},
        {{0xc3}, em_64bit, InsnClass::ret, 1, false, 0, InsnKind::plain},
        {{0xc2, 0x08, 0x00}, em_64bit, InsnClass::ret, 3, false, 0, InsnKind::plain},
        {{0xeb, 0xfe}, em_64bit, InsnClass::jump, 2, true, -2, InsnKind::plain},
        {{0xff, 0xe0}, em_64bit, InsnClass::jump, 2, false, 0, InsnKind::plain},
        {{0x74, 0x05}, em_64bit, InsnClass::cond_jump, 2, true, 5, InsnKind::plain},
        {{0x0f, 0x85, 0x00, 0x01, 0x00, 0x00},
         em_64bit,
         InsnClass::cond_jump,
         6,
         true,
         0x100,
         InsnKind::plain},
        {{0xe2, 0xfc}, em_64bit, InsnClass::cond_jump, 2, true, -4, InsnKind::plain},
        {{0xe3, 0x02}, em_64bit, InsnClass::cond_jump, 2, true, 2, InsnKind::plain},
        {{0xcc}, em_64bit, InsnClass::far_call, 1, false, 0, InsnKind::changes_cpl},
        {{0x0f, 0x05}, em_64bit, InsnClass::far_call, 2, false, 0, InsnKind::changes_cpl},
        {{0x0f, 0x01, 0xc1}, em_64bit, InsnClass::far_call, 3, false, 0, InsnKind::plain},
        {{0x9a, 0, 0, 0, 0, 0x10, 0}, em_32bit, InsnClass::far_call, 7, false, 0, InsnKind::plain},
        {{0x48, 0xcf}, em_64bit, InsnClass::far_return, 2, false, 0, InsnKind::changes_cpl},
        {{0x48, 0x0f, 0x07}, em_64bit, InsnClass::far_return, 3, false, 0, InsnKind::changes_cpl},
        {{0xcb}, em_64bit, InsnClass::far_return, 1, false, 0, InsnKind::plain},
        {{0x0f, 0x01, 0xc2}, em_64bit, InsnClass::far_return, 3, false, 0, InsnKind::vmlaunch},
        {{0x0f, 0x01, 0xc3}, em_64bit, InsnClass::far_return, 3, false, 0, InsnKind::vmresume},
        {{0xff, 0x28}, em_64bit, InsnClass::far_jump, 2, false, 0, InsnKind::plain},
        {{0x0f, 0x22, 0xd8}, em_64bit, InsnClass::other, 3, false, 0, InsnKind::mov_cr3},
        {{0x0f, 0x22, 0xd0}, em_64bit, InsnClass::other, 3, false, 0, InsnKind::plain},
        {{0x0f, 0xc7, 0x30}, em_64bit, InsnClass::other, 3, false, 0, InsnKind::vmptrld},
        {{0xf3, 0x0f, 0xae, 0xe0}, em_64bit, InsnClass::ptwrite, 4, false, 0, InsnKind::plain},
        {{0xeb, 0x10}, em_16bit, InsnClass::jump, 2, true, 0x10, InsnKind::plain},
        // Newer than Zydis 4.0: ERETU, ERETS, JMPABS.
        {{0xf3, 0x0f, 0x01, 0xca}, em_64bit, InsnClass::far_return, 4, false, 0, InsnKind::changes_cpl},
        {{0xf2, 0x0f, 0x01, 0xca}, em_64bit, InsnClass::far_return, 4, false, 0, InsnKind::changes_cpl},
        {{0xd5, 0x00, 0xa1, 0x0d, 0x10, 0, 0, 0, 0, 0, 0},
         em_64bit,
         InsnClass::jump,
         11,
         false,
         0,
         InsnKind::plain},
    };
    for (const ClassCase& c : cases) {
        DecodedInsn d;
        ASSERT_EQ(decode_insn(d, c.bytes.data(), c.bytes.size(), c.mode), 0) << int(c.bytes[0]);
        EXPECT_EQ(d.iclass, c.iclass) << int(c.bytes[0]) << " " << int(c.bytes.size());
        EXPECT_EQ(d.size, c.size) << int(c.bytes[0]);
        EXPECT_EQ(d.is_direct, c.direct) << int(c.bytes[0]);
        EXPECT_EQ(d.displacement, c.displacement) << int(c.bytes[0]);
        EXPECT_EQ(d.kind, c.kind) << int(c.bytes[0]) << " " << int(c.bytes.size());
        EXPECT_EQ(class_by_category(c.bytes.data(), c.bytes.size(), c.mode), c.iclass) << int(c.bytes[0]);
    }
    // FF /7 (reserved): plain, its length from ModRM, as libipt's length decoder takes it (the
    // second opinion, by Zydis's categories, finds no instruction: --check says so).
    const std::vector<std::pair<Bytes, ExecMode>> reserved = {
        {{0xff, 0xff}, em_64bit},
        {{0x48, 0xff, 0xbc, 0x24, 1, 2, 3, 4}, em_64bit},
        {{0x67, 0xff, 0x7f, 0x10}, em_32bit},
        {{0xff, 0x3e, 0x34, 0x12}, em_16bit}};
    for (const auto& [bytes, mode] : reserved) {
        DecodedInsn r;
        ASSERT_EQ(decode_insn(r, bytes.data(), bytes.size(), mode), 0) << bytes.size();
        EXPECT_EQ(r.iclass, InsnClass::other);
        EXPECT_EQ(r.size, bytes.size());
        EXPECT_EQ(decode_insn(r, bytes.data(), bytes.size() - 1, mode), -pte_bad_insn) << bytes.size();
        EXPECT_EQ(class_by_category(bytes.data(), bytes.size(), mode), InsnClass::error);
    }
    DecodedInsn d;
    const Bytes cut = {0xe8, 0x10};
    EXPECT_EQ(decode_insn(d, cut.data(), cut.size(), em_64bit), -pte_bad_insn);
    const Bytes nop = {0x90};
    EXPECT_EQ(decode_insn(d, nop.data(), nop.size(), em_unknown), -pte_bad_insn);
}

const Bytes kMode64 = {0x99, 0x01};

std::string flow(const Bytes& code, uint64_t org, const Bytes& trace, std::vector<std::string> extra = {}) {
    fs::path bin = write_temp("code.bin", code), pt = write_temp("trace.pt", trace);
    std::vector<std::string> args = {"--insn-decoder", "--raw", bin.string() + ":" + std::to_string(org)};
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"--no-inst", "--check", "--pt", pt.string()});
    char* text = nullptr;
    size_t size = 0;
    std::FILE* out = open_memstream(&text, &size);
    EXPECT_EQ(flow_main(args, out, stderr), 0);
    std::fclose(out);
    std::string result(text, size);
    std::free(text);
    fs::remove(bin);
    fs::remove(pt);
    return result;
}

// Enabled at 0x1000, a taken and a not-taken jz, a call and a compressed return, a disable.
TEST(IptFlow, BranchesCallAndCompressedReturn) {
    const Bytes code = {
        0x74, 0x01,                    // 1000: jz 1003 (taken)
        0x90,                          // 1002: nop
        0x74, 0x01,                    // 1003: jz 1006 (not taken)
        0xe8, 0x02, 0x00, 0x00, 0x00,  // 1005: call 100c
        0x90,                          // 100a: nop (after the return)
        0x90,                          // 100b
        0xc3,                          // 100c: ret (compressed)
    };
    const Bytes tip_pge = {0x31, 0x00, 0x10};  // TIP.PGE, 16-bit IP 0x1000
    const Bytes tnt = {0x1a};                  // TNT-8: taken, not taken, taken (the return)
    const Bytes fup = {0x3d, 0x0b, 0x10};      // FUP 0x100b
    const Bytes tip_pgd = {0x01};              // TIP.PGD, IP suppressed
    const std::string got = flow(code, 0x1000, cat({kPsb, kMode64, kPsbend, tip_pge, tnt, fup, tip_pgd}));
    EXPECT_EQ(got,
              "[enabled]\n"
              "0000000000001000\n"
              "0000000000001003\n"
              "0000000000001005\n"
              "000000000000100c\n"
              "000000000000100a\n"
              "[disabled]\n");
}

// Decoding stops at an address without code: the error names the trace offset and the address.
TEST(IptFlow, NoCodeMapped) {
    const Bytes code = {0x90, 0xeb, 0x10};  // 1000: nop; 1001: jmp 1013 (nothing there)
    const Bytes tip_pge = {0x31, 0x00, 0x10};
    const Bytes tnt = {0x06};  // one branch: without it the trace ends after the TIP.PGE
    const Bytes trace = cat({kPsb, kMode64, kPsbend, tip_pge, tnt});
    // libipt 2.0.5's output (bench/reference/ptxed_libipt.c), as for the test above: the offset
    // where its query decoder read ahead to, before the TNT.
    EXPECT_EQ(flow(code, 0x1000, trace, {"--compat", "2.0.5"}),
              "[enabled]\n"
              "0000000000001000\n"
              "0000000000001001\n"
              "[17, 1013: error: no memory mapped at this address]\n");
    // libipt master's: its event decoder holds the TNT, the next thing the flow has not taken,
    // and stands past it (as in its ptxed-resync-* expectations).
    EXPECT_EQ(flow(code, 0x1000, trace),
              "[enabled]\n"
              "0000000000001000\n"
              "0000000000001001\n"
              "[18, 1013: error: no memory mapped at this address]\n");
}

// `jmp $` takes no trace: the decoder would print it forever (ptxed does); the stretch ends with an
// error after a bound, and the command returns.
TEST(IptFlow, LoopWithoutTraceEnds) {
    const Bytes code = {0xeb, 0xfe};  // 1000: jmp 1000
    const Bytes tip_pge = {0x31, 0x00, 0x10};
    const Bytes tnt = {0x06};
    const std::string got =
        flow(code, 0x1000, cat({kPsb, kMode64, kPsbend, tip_pge, tnt}), {"--quiet", "--stat"});
    EXPECT_EQ(got, "[17, 1000: error: 4194304 instructions without trace]\ninsn: 4194305.\n");
}

// The overflow errata of the query layer, on the streams of libipt's apl11 and skd010-tip cases
// (built here): decoded as libipt 2.0.5 decodes them, with the cpu and without.
TEST(IptFlow, OverflowErrata) {
    const Bytes fup_1000 = {0x7d, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00};
    const Bytes ovf = {0x02, 0xf3};
    const Bytes tip_pgd_1001 = {0x61, 0x01, 0x10, 0x00, 0x00, 0x00, 0x00};
    const Bytes tip_pge_1002 = {0x71, 0x02, 0x10, 0x00, 0x00, 0x00, 0x00};
    const Bytes fup_1003 = {0x3d, 0x03, 0x10};
    const Bytes tip_pgd = {0x01};
    // APL11: an OVF followed by a spurious TIP.PGD.
    const Bytes apl11 =
        cat({kPsb, kMode64, fup_1000, kPsbend, ovf, tip_pgd_1001, kMode64, tip_pge_1002, fup_1003, tip_pgd});
    const Bytes apl11_code = {0xf4, 0xf4, 0x90, 0xf4};
    EXPECT_EQ(flow(apl11_code, 0x1000, apl11), "[1d, 0: error: unexpected packet context]\n");
    EXPECT_EQ(flow(apl11_code, 0x1000, apl11, {"--cpu", "6/92"}),
              "[overflow]\n[enabled]\n[exec mode: 64-bit]\n0000000000001002\n[disabled]\n");
    // SKD010: the FUP after the OVF dropped; tracing resumes at the TIP.
    const Bytes tip_1000 = {0x6d, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00};
    const Bytes fup_1001 = {0x3d, 0x01, 0x10};
    const Bytes skd010 = cat({kPsb, kMode64, kPsbend, ovf, tip_1000, fup_1001, tip_pgd});
    const Bytes skd010_code = {0x90, 0x90, 0xf4};
    EXPECT_EQ(flow(skd010_code, 0x1000, skd010), "[16, 0: error: unexpected packet context]\n");
    EXPECT_EQ(flow(skd010_code, 0x1000, skd010, {"--cpu", "6/142"}),
              "[overflow]\n0000000000001000\n[disabled]\n");
}

// SKZ84: a TMA with reserved bits set (VMX TSC scaling) is skipped where the cpu has the erratum
// (libipt's skz84 case, built here).
TEST(IptFlow, Skz84InvalidTmaSkipped) {
    const Bytes fup = {0x7d, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00};  // 0x100000
    const Bytes bad_tma = {0x02, 0x73, 0x01, 0x01, 0x01, 0x01, 0x00, 0x00};
    const Bytes fup_1 = {0x3d, 0x01, 0x00};
    const Bytes trace = cat({kPsb, fup, kMode64, kPsbend, bad_tma, fup_1, {0x01}});
    const Bytes code = {0x90, 0xf4};
    EXPECT_EQ(flow(code, 0x100000, trace), "[1b, 0: sync error: unknown packet]\n");
    EXPECT_EQ(flow(code, 0x100000, trace, {"--cpu", "19/1"}), "0000000000100000\n[disabled]\n");
}

// --resync-on-error: after an error, decoding goes on at the next IP the trace gives, an
// interrupt's source here, the error reported where libipt master's event decoder stands (the TIP
// of the interrupt it holds). libipt's ptxed-resync-nomap-fup-tip case, built here, and its
// expectation. Without the option the first error ends the stretch.
TEST(IptFlow, ResyncOnError) {
    const Bytes code = {0xe9, 0xfb, 0x00, 0x00, 0x00, 0xf4, 0x90, 0xf4};  // jmp 100100; hlt; nop; hlt
    const Bytes fup = {0x7d, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00};
    auto ip16 = [](uint8_t opcode, uint16_t low) {
        return Bytes{opcode, static_cast<uint8_t>(low), static_cast<uint8_t>(low >> 8)};
    };
    const Bytes trace = cat({kPsb,
                             fup,
                             kMode64,
                             kPsbend,
                             ip16(0x3d, 0x0200),
                             ip16(0x2d, 0x0300),
                             ip16(0x3d, 0x0400),
                             ip16(0x2d, 0x0006),
                             ip16(0x3d, 0x0007),
                             {0x01}});
    EXPECT_EQ(flow(code, 0x100000, trace, {"--resync-on-error", "--event:ip"}),
              "0000000000100000\n"
              "[1e, 100100: error: no memory mapped at this address]\n"
              "[interrupt, from: 0000000000100200, to: 0000000000100300]\n"
              "[24, 100300: error: no memory mapped at this address]\n"
              "[interrupt, from: 0000000000100400, to: 0000000000100006]\n"
              "0000000000100006\n"
              "[disabled, at: 0000000000100007]\n");
    EXPECT_EQ(flow(code, 0x100000, trace, {"--event:ip"}),
              "0000000000100000\n"
              "[1e, 100100: error: no memory mapped at this address]\n");
}

// A resync drops the TNT bits on its way and takes the next TIP's target; an enable while tracing
// comes after a disable (libipt's ptxed-resync-nomap-tip_pge case, built here).
TEST(IptFlow, ResyncDropsTntBits) {
    const Bytes code = {0xff, 0xd0, 0xf4, 0x90, 0xf4};  // call rax; hlt; nop; hlt
    const Bytes fup = {0x7d, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00};
    const Bytes tip_100100 = {0x6d, 0x00, 0x01, 0x10, 0x00, 0x00, 0x00};
    const Bytes tip_100200 = {0x6d, 0x00, 0x02, 0x10, 0x00, 0x00, 0x00};
    const Bytes tnt = {0xd8};  // taken, not, taken, taken, not, not
    const Bytes tip_pge = {0x51, 0x03, 0x00, 0x10, 0x00};
    const Bytes fup_0004 = {0x3d, 0x04, 0x00};
    const Bytes trace =
        cat({kPsb, fup, kMode64, kPsbend, tip_100100, tip_100200, tnt, tip_pge, fup_0004, {0x01}});
    EXPECT_EQ(flow(code, 0x100000, trace, {"--resync-on-error"}),
              "0000000000100000\n"
              "[22, 100100: error: no memory mapped at this address]\n"
              "[2a, 100200: error: no memory mapped at this address]\n"
              "[disabled]\n"
              "[enabled]\n"
              "0000000000100003\n"
              "[disabled]\n");
}

TEST(IptFlow, UsageErrors) {
    std::FILE* sink = std::tmpfile();
    EXPECT_EQ(flow_main({"--raw", "x.bin"}, sink, sink), 2);
    EXPECT_EQ(flow_main({"--bogus", "a.pt"}, sink, sink), 2);
    EXPECT_EQ(flow_main({"--raw", "/nonexistent/x.bin:0x1000", "a.pt"}, sink, sink), 1);
    EXPECT_EQ(flow_main({"/nonexistent/a.pt"}, sink, sink), 1);
    std::fclose(sink);
}

}  // namespace
