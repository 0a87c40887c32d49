#include <gtest/gtest.h>

#include "ringscope/sub_buffer.hpp"
#include "test_util.hpp"

namespace ringscope {
namespace {

TEST(SubBufferLayout, FromThisKernelsHeaderPage) {
    auto l = SubBufferLayout::from_header_page(test::read_text(test::data_dir() + "/header_page"));
    ASSERT_TRUE(l) << l.error().to_string();
    EXPECT_EQ(l->long_size, 8);
    EXPECT_EQ(l->data_offset, 16u);
    EXPECT_EQ(l->subbuf_size, 4096u);
    EXPECT_TRUE(l->has_overwrite);
    EXPECT_EQ(l->commit_mask, (1u << 27) - 1);
    EXPECT_EQ(l->missed_events_flag, 1u << 31);
    EXPECT_EQ(l->missed_stored_flag, 1u << 30);
    EXPECT_FALSE(l->big_endian);
}

TEST(SubBufferLayout, LargerSubBuffer) {
    auto l = SubBufferLayout::from_header_page(test::read_text(test::data_dir() + "/header_page.subbuf8k"));
    ASSERT_TRUE(l) << l.error().to_string();
    EXPECT_EQ(l->subbuf_size, 8192u);
}

TEST(SubBufferLayout, ThirtyTwoBitBigEndianKernel) {
    const char* text =
        "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
        "\tfield: local_t commit;\toffset:8;\tsize:4;\tsigned:1;\n"
        "\tfield: char data;\toffset:12;\tsize:4084;\tsigned:0;\n";
    auto l = SubBufferLayout::from_header_page(text, SubBufferEndian::big);
    ASSERT_TRUE(l) << l.error().to_string();
    EXPECT_EQ(l->long_size, 4);
    EXPECT_EQ(l->data_offset, 12u);
    EXPECT_EQ(l->subbuf_size, 4096u);
    EXPECT_FALSE(l->has_overwrite);
    EXPECT_TRUE(l->big_endian);
}

TEST(SubBufferLayout, ErrorsSayWhere) {
    auto bad = SubBufferLayout::from_header_page(
        "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
        "\tfield: local_t commit;\toffset:8;\tsize:x;\n");
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().code(), Errc::parse);
    EXPECT_EQ(bad.error().line(), 2);
    EXPECT_GT(bad.error().column(), 0);

    auto missing =
        SubBufferLayout::from_header_page("\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n");
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().code(), Errc::parse);
    EXPECT_NE(missing.error().message().find("commit"), std::string::npos);

    auto gap = SubBufferLayout::from_header_page(
        "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
        "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
        "\tfield: char data;\toffset:24;\tsize:4072;\tsigned:0;\n");
    ASSERT_FALSE(gap);
    EXPECT_EQ(gap.error().code(), Errc::unsupported);
    EXPECT_EQ(gap.error().line(), 3);
}

TEST(SubBufferLayout, AllocChoices) {
    auto host = SubBufferLayout::make(SubBufferEndian::host, SubBufferLongSize::host);
    ASSERT_TRUE(host);
    EXPECT_EQ(host->long_size, sizeof(long) == 8 ? 8 : host->long_size);
    auto be4 = SubBufferLayout::make(SubBufferEndian::big, SubBufferLongSize::four, 8192);
    ASSERT_TRUE(be4);
    EXPECT_TRUE(be4->big_endian);
    EXPECT_EQ(be4->data_offset, 12u);
    EXPECT_EQ(be4->subbuf_size, 8192u);
    EXPECT_FALSE(SubBufferLayout::make(SubBufferEndian::little, static_cast<SubBufferLongSize>(3)));
    EXPECT_FALSE(SubBufferLayout::make(static_cast<SubBufferEndian>(7), SubBufferLongSize::host));
    EXPECT_FALSE(SubBufferLayout::make(SubBufferEndian::host, SubBufferLongSize::eight, 10));
    EXPECT_FALSE(SubBuffer::alloc(SubBufferEndian::big, static_cast<SubBufferLongSize>(5)));
    auto sb = SubBuffer::alloc(SubBufferEndian::little, SubBufferLongSize::four);
    ASSERT_TRUE(sb);
    EXPECT_EQ(sb->layout().data_offset, 12u);
}

}  // namespace
}  // namespace ringscope
