// The pieces of `ringscope export` that need no server: URL parsing, the Native encoding and the
// content hash's independence from how the bytes are cut.
#include <gtest/gtest.h>
#include <zlib.h>

#include <fstream>
#include <numeric>
#include <vector>

#include "framework/export/clickhouse_schema.hpp"
#include "framework/export/clickhouse_url.hpp"
#include "framework/export/content_hash.hpp"
#include "framework/export/deflate_stream.hpp"
#include "framework/export/http_answer.hpp"
#include "framework/export/lib_curl.hpp"
#include "framework/export/native_block.hpp"

namespace ringscope::exporter {
namespace {

// libcurl is loaded on the first export, not linked: its functions must all resolve and work.
TEST(LibCurl, LoadsOnceAndItsFunctionsWork) {
    auto lib = LibCurl::get();
    ASSERT_TRUE(lib) << lib.error().message();
    auto again = LibCurl::get();
    ASSERT_TRUE(again);
    EXPECT_EQ(*lib, *again);
    CURL* handle = (*lib)->easy_init();
    ASSERT_NE(handle, nullptr);
    char* escaped = (*lib)->easy_escape(handle, "a b&c", 5);
    ASSERT_NE(escaped, nullptr);
    EXPECT_STREQ(escaped, "a%20b%26c");
    (*lib)->free(escaped);
    EXPECT_STREQ((*lib)->easy_strerror(CURLE_COULDNT_CONNECT), "Couldn't connect to server");
    (*lib)->easy_cleanup(handle);
}

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

// The bytes ClickHouse 18.16 itself sends for
//   SELECT arrayJoin([1, 2]) AS n, toUInt32(n) AS u, toString(n) AS s, [toInt64(-n)] AS a,
//          [['x'], []] AS aa FORMAT Native
// (over HTTP, so no block info), rebuilt with the writer.
TEST(NativeBlockWriter, WritesWhatClickHouseWrites) {
    const std::vector<uint8_t> want = {
        0x05, 0x02, 0x01, 0x6e, 0x05, 0x55, 0x49, 0x6e, 0x74, 0x38, 0x01, 0x02, 0x01, 0x75, 0x06, 0x55, 0x49,
        0x6e, 0x74, 0x33, 0x32, 0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x73, 0x06, 0x53, 0x74,
        0x72, 0x69, 0x6e, 0x67, 0x01, 0x31, 0x01, 0x32, 0x01, 0x61, 0x0c, 0x41, 0x72, 0x72, 0x61, 0x79, 0x28,
        0x49, 0x6e, 0x74, 0x36, 0x34, 0x29, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, 0xff, 0xff, 0xff,
        0xff, 0xff, 0xff, 0xff, 0x02, 0x61, 0x61, 0x14, 0x41, 0x72, 0x72, 0x61, 0x79, 0x28, 0x41, 0x72, 0x72,
        0x61, 0x79, 0x28, 0x53, 0x74, 0x72, 0x69, 0x6e, 0x67, 0x29, 0x29, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x78, 0x01, 0x78,
    };
    NativeBytes n, u, s, a_elems, aa_strings;
    NativeArrayOffsets a_offsets, aa_outer, aa_inner;
    for (int row = 1; row <= 2; ++row) {
        n.fixed(static_cast<uint8_t>(row));
        u.fixed(static_cast<uint32_t>(row));
        s.string(std::to_string(row));
        a_elems.fixed(static_cast<int64_t>(-row));
        a_offsets.add_elements(1);
        a_offsets.end_row();
        aa_strings.string("x");  // [['x'], []]
        aa_inner.add_elements(1);
        aa_inner.end_row();
        aa_inner.end_row();
        aa_outer.add_elements(2);
        aa_outer.end_row();
    }
    NativeBytes out;
    NativeBlockWriter<NativeBytes> block(out, 5, 2);
    const NativeBytes* pn[] = {&n};
    const NativeBytes* pu[] = {&u};
    const NativeBytes* ps[] = {&s};
    const NativeBytes* pa[] = {&a_offsets.data(), &a_elems};
    const NativeBytes* paa[] = {&aa_outer.data(), &aa_inner.data(), nullptr, &aa_strings};
    block.column("n", "UInt8", pn);
    block.column("u", "UInt32", pu);
    block.column("s", "String", ps);
    block.column("a", "Array(Int64)", pa);
    block.column("aa", "Array(Array(String))", paa);
    EXPECT_EQ(out.bytes(), want);
}

TEST(DeflateStream, InflatesToWhatWentIn) {
    std::vector<uint8_t> data(300000);
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>((i * 7919) >> 5);
    DeflateStream d;
    for (int round = 0; round < 2; ++round) {  // reset() starts a fresh stream
        d.reset();
        d.add(std::span<const uint8_t>(data).first(1000));
        d.add(std::span<const uint8_t>(data).subspan(1000));
        ASSERT_TRUE(d.finish());
        std::vector<uint8_t> back(data.size() + 1);
        uLongf n = back.size();
        ASSERT_EQ(uncompress(back.data(), &n, d.body().data(), d.body().size()), Z_OK);
        back.resize(n);
        EXPECT_EQ(back, data);
        EXPECT_LT(d.body().size(), data.size());
    }
}

TEST(NativeBytes, Leb128) {
    NativeBytes b;
    b.varuint(0);
    b.varuint(127);
    b.varuint(300);
    b.varuint(UINT64_MAX);
    const std::vector<uint8_t> want = {0x00, 0x7f, 0xac, 0x02, 0xff, 0xff, 0xff,
                                       0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    EXPECT_EQ(b.bytes(), want);
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
    EXPECT_NE(s.create_events().find("(file_id UInt64, seq UInt64, file String,"), std::string::npos);
    EXPECT_NE(s.create_events().find("arr_values Array(Array(Int64)))"), std::string::npos);
    EXPECT_EQ(s.drop_file_events(12345), "ALTER TABLE rs.events DROP PARTITION 12345");
    EXPECT_EQ(s.count_batch(7, 10, 20),
              "SELECT count() FROM rs.events WHERE file_id = 7 AND seq >= 10 AND seq < 20");
}

}  // namespace
}  // namespace ringscope::exporter

// ClickHouse answers 500 for deterministic and passing exceptions alike; the code in the body decides.
TEST(HttpAnswer, RetriesOnlyWhatMayPass) {
    using ringscope::exporter::answer_is_transient;
    using ringscope::exporter::clickhouse_exception_code;
    EXPECT_EQ(clickhouse_exception_code("Code: 62. DB::Exception: Syntax error"), 62);
    EXPECT_EQ(clickhouse_exception_code("Code: 62 DB::Exception"), std::nullopt);
    EXPECT_EQ(clickhouse_exception_code("Code: "), std::nullopt);
    EXPECT_EQ(clickhouse_exception_code("<html>bad gateway</html>"), std::nullopt);
    EXPECT_FALSE(answer_is_transient(500, "Code: 62. DB::Exception: Syntax error: failed at position 1"));
    EXPECT_FALSE(answer_is_transient(500, "Code: 53. DB::Exception: Type mismatch"));
    EXPECT_FALSE(answer_is_transient(500, "Code: 164. DB::Exception: Cannot execute query in readonly mode"));
    EXPECT_TRUE(answer_is_transient(500, "Code: 241. DB::Exception: Memory limit (total) exceeded"));
    EXPECT_TRUE(answer_is_transient(500, "Code: 252. DB::Exception: Too many parts"));
    EXPECT_TRUE(answer_is_transient(500, "Code: 999. Coordination::Exception: Connection loss"));
    EXPECT_TRUE(answer_is_transient(500, "Internal Server Error"));  // a proxy's, no code
    for (long s : {502L, 503L, 504L}) EXPECT_TRUE(answer_is_transient(s, "Code: 62. x"));
    for (long s : {400L, 401L, 403L, 404L, 413L, 501L, 505L}) EXPECT_FALSE(answer_is_transient(s, ""));
}
