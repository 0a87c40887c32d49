// The pieces of `ringscope export` that need no server: URL parsing, the RowBinary encoding and the
// content hash's independence from how the bytes are cut.
#include <gtest/gtest.h>

#include <fstream>
#include <numeric>
#include <vector>

#include "framework/export/clickhouse_schema.hpp"
#include "framework/export/clickhouse_url.hpp"
#include "framework/export/content_hash.hpp"
#include "framework/export/row_binary_writer.hpp"

namespace ringscope::exporter {
namespace {

TEST(ClickHouseUrl, FullForm) {
    auto u = ClickHouseUrl::parse("clickhouse://127.0.0.2:18123/traces");
    ASSERT_TRUE(u) << u.error().to_string();
    EXPECT_EQ(u->host, "127.0.0.2");
    EXPECT_EQ(u->port, 18123);
    EXPECT_EQ(u->database, "traces");
    EXPECT_EQ(u->http_base(), "http://127.0.0.2:18123/");
}

TEST(ClickHouseUrl, DefaultsAndIpv6) {
    auto u = ClickHouseUrl::parse("clickhouse://db.example");
    ASSERT_TRUE(u);
    EXPECT_EQ(u->port, 8123);
    EXPECT_EQ(u->database, "default");
    auto v6 = ClickHouseUrl::parse("clickhouse://[::1]:9123/x_1/");
    ASSERT_TRUE(v6) << v6.error().to_string();
    EXPECT_EQ(v6->host, "::1");
    EXPECT_EQ(v6->database, "x_1");
    EXPECT_EQ(v6->http_base(), "http://[::1]:9123/");
}

TEST(ClickHouseUrl, RejectsBadInput) {
    for (const char* bad : {"http://h:1/db", "clickhouse://", "clickhouse://h:0/db", "clickhouse://h:70000",
                            "clickhouse://h:12x/db", "clickhouse://h:1/db;DROP", "clickhouse://u@h:1/db",
                            "clickhouse://[::1/db", "clickhouse://h:/db"}) {
        auto u = ClickHouseUrl::parse(bad);
        ASSERT_FALSE(u) << bad;
        EXPECT_NE(u.error().to_string().find(bad), std::string::npos) << u.error().to_string();
    }
}

TEST(RowBinaryWriter, EncodesAsClickHouseReadsIt) {
    RowBinaryWriter w;
    w.u32(0x01020304);
    w.i32(-2);
    w.u64(300);
    w.string("ab");
    w.varuint(300);
    std::string_view names[] = {"x", ""};
    w.strings(names);
    int64_t ints[] = {-1, 2};
    w.int64s(ints);
    const std::vector<uint8_t> want = {
        0x04, 0x03, 0x02, 0x01,                                                        // UInt32 little-endian
        0xfe, 0xff, 0xff, 0xff,                                                        // Int32 -2
        0x2c, 0x01, 0,    0,    0,    0,    0,    0,                                   // UInt64 300
        2,    'a',  'b',                                                               // String
        0xac, 0x02,                                                                    // LEB128 300
        2,    1,    'x',  0,                                                           // Array(String)
        2,    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 0, 0, 0,  // Array(Int64)
    };
    EXPECT_EQ(w.bytes(), want);
}

TEST(ContentHash, SameDigestHoweverTheBytesAreCut) {
    std::vector<uint8_t> bytes(1000);
    std::iota(bytes.begin(), bytes.end(), 7);
    ContentHash whole;
    whole.update(bytes);
    for (size_t step : {1u, 3u, 8u, 13u, 999u}) {
        ContentHash parts;
        for (size_t at = 0; at < bytes.size(); at += step)
            parts.update(std::span<const uint8_t>(bytes).subspan(at, std::min(step, bytes.size() - at)));
        EXPECT_EQ(parts.digest(), whole.digest()) << "step " << step;
    }
    ContentHash other;
    bytes[500] ^= 1;
    other.update(bytes);
    EXPECT_NE(other.digest(), whole.digest());
    ContentHash shorter;
    shorter.update(std::span<const uint8_t>(bytes).first(999));
    EXPECT_NE(shorter.digest(), other.digest());
}

TEST(ContentHash, OfFileMatchesTheBytesAndNamesAMissingFile) {
    const std::string path = std::string(RINGSCOPE_TEST_DATA_DIR) + "/traces/basic.dat";
    std::ifstream in(path, std::ios::binary);
    ASSERT_TRUE(in);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
    ContentHash h;
    h.update(bytes);
    auto d = ContentHash::of_file(path);
    ASSERT_TRUE(d) << d.error().to_string();
    EXPECT_EQ(*d, h.digest());
    auto missing = ContentHash::of_file("/nonexistent/trace.dat");
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().to_string().find("/nonexistent/trace.dat"), std::string::npos);
}

TEST(FileId, DependsOnTraceIdAndContent) {
    EXPECT_NE(file_id(1, 42), file_id(2, 42));
    EXPECT_NE(file_id(1, 42), file_id(1, 43));
    EXPECT_EQ(file_id(1, 42), file_id(1, 42));
}

TEST(ClickHouseSchema, PartitionsEventsByFile) {
    ClickHouseSchema s("rs");
    EXPECT_NE(s.create_events().find("PARTITION BY file_id"), std::string::npos);
    EXPECT_EQ(s.drop_file_events(12345), "ALTER TABLE rs.events DROP PARTITION 12345");
    EXPECT_EQ(s.count_batch(7, 10, 20),
              "SELECT count() FROM rs.events WHERE file_id = 7 AND seq >= 10 AND seq < 20");
}

}  // namespace
}  // namespace ringscope::exporter
