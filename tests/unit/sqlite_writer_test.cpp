// BatchInsert leaves a variable bound when it holds the value already (a NULL, an equal integer):
// whatever a column slot held in the batch before (NULL, integer, text, blob), each row reads back
// as it was added, through full batches and the single-row statement of the rest.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>
#include <vector>

#include "framework/sinks/sqlite_writer.hpp"

namespace ringscope::sinks {
namespace {

// Row r, column c: a kind that changes from row to row in its own pattern per column, so that every
// slot of the statement sees every change of kind and of value.
std::string expected(int r, int c) {
    switch ((r / (c + 1) + c) % 5) {
        case 0:
            return "null";
        case 1:
            return "int 7";
        case 2:
            return "int " + std::to_string(r % 3);
        case 3:
            return "text t" + std::to_string(r % 4);
        default:
            return "blob " + std::to_string(r % 2);
    }
}

TEST(BatchInsert, RowsReadBackAsAddedWhateverTheSlotHeldBefore) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(":memory:", &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE t (a, b, c, d)", nullptr, nullptr, nullptr), SQLITE_OK);
    constexpr int kColumns = 4, kRows = 5 * 256 + 77;  // full batches of 256 and a rest
    {
        SqliteWriter writer(db);
        BatchInsert insert(writer, "t", kColumns);
        for (int r = 0; r < kRows; ++r) {
            for (int c = 0; c < kColumns; ++c) {
                const std::string v = expected(r, c);
                if (v == "null") {
                    insert.add_null();
                } else if (v.rfind("int ", 0) == 0) {
                    insert.add_int(std::stoll(v.substr(4)));
                } else if (v.rfind("text ", 0) == 0) {
                    insert.add_text(v.substr(5));
                } else {
                    const uint8_t bytes[2] = {static_cast<uint8_t>(v.back()), 0xff};
                    insert.add_blob(bytes);
                }
            }
            insert.end_row();
        }
        insert.flush();
        ASSERT_TRUE(writer.finish());
    }
    sqlite3_stmt* st = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT rowid, * FROM t ORDER BY rowid", -1, &st, nullptr), SQLITE_OK);
    int rows = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        for (int c = 0; c < kColumns; ++c) {
            std::string got;
            switch (sqlite3_column_type(st, c + 1)) {
                case SQLITE_NULL:
                    got = "null";
                    break;
                case SQLITE_INTEGER:
                    got = "int " + std::to_string(sqlite3_column_int64(st, c + 1));
                    break;
                case SQLITE_TEXT:
                    got =
                        "text " + std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, c + 1)));
                    break;
                default: {
                    const auto* b = static_cast<const uint8_t*>(sqlite3_column_blob(st, c + 1));
                    got = sqlite3_column_bytes(st, c + 1) == 2 && b[1] == 0xff
                              ? "blob " + std::string(1, b[0])
                              : "bad blob";
                }
            }
            ASSERT_EQ(got, expected(rows, c)) << "row " << rows << " column " << c;
        }
        ++rows;
    }
    EXPECT_EQ(rows, kRows);
    sqlite3_finalize(st);
    sqlite3_close(db);
}

}  // namespace
}  // namespace ringscope::sinks
