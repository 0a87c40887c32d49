// The BTF parser and libtraceevent 1.9's argument printing (trace-btf.c, tep_btf_print_args) on
// blobs built here, one case per branch of that function, and on the BTF of this machine's kernel
// as trace-cmd 3.4 stored it (../shared, skipped without it). No binary of libtraceevent 1.9 was
// available: the expected texts follow its source.
#include <filesystem>

#include <gtest/gtest.h>

#include "btf_builder.hpp"
#include "framework/btf/btf.hpp"
#include "framework/io/trace_dat_reader.hpp"

using namespace ringscope;
using btf_test::BtfBuilder;

namespace {

std::string sample_blob() {
    BtfBuilder b;
    const uint32_t i32 = b.int_type("int", 32, true);
    const uint32_t ul = b.int_type("long unsigned int", 64, false);
    const uint32_t ll = b.int_type("long long int", 64, true);
    const uint32_t boolean = b.int_type("_Bool", 8, false, 0, 4);  // BTF_INT_BOOL
    const uint32_t chr = b.int_type("char", 8, true);
    const uint32_t nibble = b.int_type("nibble", 4, false, 4);  // 4 bits, 4 bits up
    const uint32_t size_t_ = b.typedef_("size_t", ul);
    const uint32_t file_p = b.ptr(b.struct_("file", 232));
    const uint32_t char_p = b.ptr(chr);
    const uint32_t loff_p = b.ptr(b.typedef_("loff_t", ll));
    const uint32_t ssize = b.typedef_("ssize_t", ll);
    b.func("vfs_read",
           b.proto(ssize, {{"file", file_p}, {"buf", char_p}, {"count", size_t_}, {"pos", loff_p}}));
    const uint32_t pair = b.struct_("pair", 16);
    const uint32_t mode = b.enum_("mode");
    b.func(
        "set_pair",
        b.proto(0,
                {{"p", pair}, {"on", b.const_(boolean)}, {"m", mode}, {"n", i32}, {"nib", nibble}, {"", 0}}));
    b.func("negative", b.proto(0, {{"v", ll}}));
    b.func("noproto", 0);
    return b.blob();
}

// Builds the loop by hand: two typedefs pointing at each other, and a function taking one.
std::string loop_blob() {
    BtfBuilder b;
    b.typedef_("loop_a", 2);  // id 1
    b.typedef_("loop_b", 1);  // id 2
    b.func("looped", b.proto(0, {{"x", 1}}));
    return b.blob();
}

std::string print(const btf::Btf& btf, std::vector<uint64_t> args, std::string_view func,
                  size_t count = ~size_t{0}) {
    if (count == ~size_t{0}) count = args.size();
    std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(args.data()), args.size() * 8);
    TextBuffer out;
    EXPECT_TRUE(btf.print_args(bytes, count, 8, func, out)) << func;
    return std::string(out.view());
}

btf::Btf sample() {
    auto b = btf::Btf::parse(sample_blob());
    EXPECT_TRUE(b) << b.error().to_string();
    return std::move(*b);
}

}  // namespace

TEST(Btf, PointersAndTypedefsPrintInHex) {
    EXPECT_EQ(print(sample(), {0xffff888100a0b000, 0x7ffd12345000, 0x1000, 0xffffc90000457e28}, "vfs_read"),
              "file=0xffff888100a0b000, buf=0x7ffd12345000, count=0x1000, pos=0xffffc90000457e28");
}

TEST(Btf, CompilerSuffixesFindTheFunction) {
    EXPECT_EQ(print(sample(), {1, 2, 3, 4}, "vfs_read.isra.0"), "file=0x1, buf=0x2, count=0x3, pos=0x4");
    EXPECT_EQ(print(sample(), {1, 2, 3, 4}, "vfs_read.constprop.0.cold"),
              "file=0x1, buf=0x2, count=0x3, pos=0x4");
}

TEST(Btf, FewerValuesThanParametersEndWithDots) {
    EXPECT_EQ(print(sample(), {1, 2, 3, 4}, "vfs_read", 2), "file=0x1, buf=0x2, ...");
    EXPECT_EQ(print(sample(), {1}, "vfs_read", 0), "...");
}

TEST(Btf, EveryKindOfParameter) {
    // A 16-byte struct takes two values; _Bool (const) is unsigned: hex; an enum in decimal; a
    // signed int from its masked 32 bits (libtraceevent's "%lld" of them); a bit field shifted and
    // masked; a variadic "..." parameter (type 0) prints its empty name and '='.
    EXPECT_EQ(print(sample(), {0x11, 0x22, 1, 3, 0xffffffffffffffff, 0xab, 9}, "set_pair"),
              "p=(STRUCT)[0x11:0x22], on=0x1, m=3, n=4294967295, nib=0xa, =");
    EXPECT_EQ(print(sample(), {static_cast<uint64_t>(-5)}, "negative"), "v=-5");
}

TEST(Btf, AStructCutShortEndsTheList) {
    EXPECT_EQ(print(sample(), {0x11, 0x22, 1}, "set_pair", 1), "p=(STRUCT)[0x11:...]");
}

TEST(Btf, UnknownFunctionsPrintTheValuesInHex) {
    EXPECT_EQ(print(sample(), {1, 0xff, 0xffffffff81000000}, "no_such_function"), "1, ff, ffffffff81000000");
    TextBuffer out;
    btf::Btf::print_raw_args({}, 0, 8, out);
    EXPECT_EQ(out.view(), "");
}

TEST(Btf, FourByteValues) {
    const uint32_t args[] = {0xc1000000, 0xbf000000, 0x10, 0xc2000000};
    TextBuffer out;
    ASSERT_TRUE(
        sample().print_args({reinterpret_cast<const uint8_t*>(args), sizeof args}, 4, 4, "vfs_read", out));
    EXPECT_EQ(out.view(), "file=0xc1000000, buf=0xbf000000, count=0x10, pos=0xc2000000");
}

TEST(Btf, WhatPrintsNothing) {
    const btf::Btf b = sample();
    const uint64_t args[] = {1, 2};
    const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(args), sizeof args);
    TextBuffer out;
    EXPECT_TRUE(b.print_args(bytes, 2, 8, "noproto", out));  // a function without a prototype
    EXPECT_FALSE(b.print_args(bytes, 2, 8, "", out));        // an unresolved function
    EXPECT_FALSE(b.print_args(bytes, 2, 2, "vfs_read", out));
    EXPECT_EQ(out.view(), "");
    // Values the record does not hold are not read.
    EXPECT_TRUE(b.print_args(bytes.first(8), 4, 8, "vfs_read", out));
    EXPECT_EQ(out.view(), "file=0x1, ...");
}

TEST(Btf, ATypedefLoopIsAnUnknownType) {
    auto b = btf::Btf::parse(loop_blob());
    ASSERT_TRUE(b) << b.error().to_string();
    EXPECT_EQ(print(*b, {7}, "looped"), "x=?0x7");
}

TEST(Btf, BadBlobsAreRefusedWithTheOffset) {
    std::string good = sample_blob();
    auto expect_error = [](std::string blob, std::string_view what, int64_t off) {
        auto b = btf::Btf::parse(std::move(blob));
        ASSERT_FALSE(b);
        EXPECT_NE(b.error().message().find(what), std::string::npos) << b.error().to_string();
        EXPECT_EQ(b.error().offset(), off);
    };
    expect_error(good.substr(0, 10), "shorter than its header", 0);
    std::string swapped = good;
    std::swap(swapped[0], swapped[1]);
    expect_error(swapped, "byte order", 0);
    std::string bad_magic = good;
    bad_magic[0] = 'x';
    expect_error(bad_magic, "bad magic", 0);
    std::string past = good;
    const uint32_t huge = 0x7fffffff;
    std::memcpy(past.data() + 12, &huge, 4);  // type_len
    expect_error(past, "type area runs past the end", 8);
    std::string unknown_kind = good;
    unknown_kind[24 + 7] = 31;  // the first type's kind byte
    expect_error(unknown_kind, "unknown kind 31", 24);
    std::string cut = good;
    const uint32_t short_len = 30;  // the first type (an INT: 16 bytes) and part of the next
    std::memcpy(cut.data() + 12, &short_len, 4);
    expect_error(cut, "type cut short", 40);
}

TEST(Btf, TheKernelsOwnBtfAsTraceCmd34StoredIt) {
    const std::string file = std::string(RINGSCOPE_SHARED_DIR) + "/conformance/trace-cmd-3.4/extract-3.4.dat";
    if (!std::filesystem::exists(file)) GTEST_SKIP() << file << " is not here";
    auto rd = io::TraceDatReader::open(file);
    ASSERT_TRUE(rd) << rd.error().to_string();
    auto blob = rd->option_section(io::OptionId::btf_file);
    ASSERT_TRUE(blob) << blob.error().to_string();
    ASSERT_TRUE(blob->has_value());
    EXPECT_EQ((*blob)->size(), 5520272u);
    auto b = btf::Btf::parse(std::move(**blob));
    ASSERT_TRUE(b) << b.error().to_string();
    EXPECT_GT(b->type_count(), 100000u);
    EXPECT_GT(b->function_count(), 40000u);
    // vfs_read(struct file *file, char __user *buf, size_t count, loff_t *pos)
    EXPECT_EQ(print(*b, {1, 2, 3, 4, 5, 6}, "vfs_read"), "file=0x1, buf=0x2, count=0x3, pos=0x4");
    // do_sys_openat2(int dfd, const char __user *filename, struct open_how *how): -100 (AT_FDCWD)
    EXPECT_EQ(
        print(*b, {static_cast<uint64_t>(-100), 0x7ffd0000, 0xffffc90000457f00, 0, 0, 0}, "do_sys_openat2"),
        "dfd=4294967196, filename=0x7ffd0000, how=0xffffc90000457f00");
    // Neither option is in this recording.
    auto mods = rd->option_section(io::OptionId::modules_file);
    ASSERT_TRUE(mods);
    EXPECT_FALSE(mods->has_value());
}
