// Writing a SQLite database fast: rows gathered and inserted many per INSERT statement (one
// statement of 256 rows costs a fraction of 256 single-row ones: statement start, cursor open,
// halt), and every statement run on a thread of its own, in order, so that decoding the trace and
// SQLite's b-tree work overlap. The thread takes the queue kWakeAt jobs at a time: a wake-up per
// job cost more than the inserts (futex calls and context switches, 13 % of a run).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <ringscope/error.hpp>

struct sqlite3;
struct sqlite3_stmt;

namespace ringscope::sinks {

// Owns the connection's use while it runs: nothing else may touch the connection until finish().
class SqliteWriter {
  public:
    using Job = std::function<Status(sqlite3*)>;
    explicit SqliteWriter(sqlite3* db);
    ~SqliteWriter();
    SqliteWriter(const SqliteWriter&) = delete;
    SqliteWriter& operator=(const SqliteWriter&) = delete;

    // Queues a job; waits while kMaxQueued are queued, so memory stays bounded.
    void submit(Job job);
    void exec(std::string sql);
    // Runs what is queued and stops the thread; the first job's error.
    Status finish();

  private:
    static constexpr size_t kMaxQueued = 64, kWakeAt = 16;
    void loop();

    sqlite3* db_;
    std::mutex mu_;
    std::condition_variable has_work_, has_room_;  // signalled only when the other side waits
    std::vector<Job> queue_;
    bool stop_ = false, writer_waits_ = false, submitter_waits_ = false;
    Status first_error_;
    std::thread thread_;
};

class BatchInsert {
  public:
    // `table` is quoted already; `columns` values per row. The statements are prepared on the
    // writer's thread.
    BatchInsert(SqliteWriter& writer, const std::string& table, int columns);

    // Exactly `columns` values per row, then end_row().
    void add_int(int64_t v) { rows_.values[rows_.used++] = {v, 0, 0, Value::integer}; }
    void add_null() { rows_.values[rows_.used++] = {0, 0, 0, Value::null}; }
    void add_text(std::string_view s) { add_bytes(s.data(), s.size(), Value::text); }
    void add_blob(std::span<const uint8_t> b) { add_bytes(b.data(), b.size(), Value::blob); }
    void add_nulls(int n) {
        for (int k = 0; k < n; ++k) add_null();
    }
    // Ends a row; hands the batch to the writer when it is full.
    void end_row() {
        if (++rows_.count == per_batch_) flush();
    }
    // Hands over what is pending (call before the writer's finish()).
    void flush();
    // Flushes, and has the statements finalised on the writer's thread: for an insert replaced
    // while the writer runs (the connection is not shared between threads).
    void retire();
    int columns() const { return columns_; }

  private:
    struct Value {  // no initialisers: a batch's values are written before they are read
        int64_t i;
        uint32_t offset, size;
        enum Kind : uint8_t { integer, text, blob, null } kind;
    };
    struct Rows {
        std::unique_ptr<Value[]> values;  // sized for a full batch: no capacity check per value
        size_t used = 0;
        std::string arena;  // text and blob bytes
        int count = 0;
    };
    struct Statements;
    // Batches written go back here for the next ones: no allocation (and no fresh pages) per
    // batch.
    struct Pool;
    void add_bytes(const void* p, size_t n, Value::Kind kind) {
        rows_.values[rows_.used++] = {0, static_cast<uint32_t>(rows_.arena.size()), static_cast<uint32_t>(n),
                                      kind};
        rows_.arena.append(static_cast<const char*>(p), n);
    }
    // What a statement's variable holds: a value equal to it is not bound again.
    struct Bound {
        int64_t i = 0;
        Value::Kind kind = Value::null;  // a variable never bound is NULL
    };
    static Status run(sqlite3* db, sqlite3_stmt* st, std::vector<Bound>& bound, const Rows& rows,
                      size_t first_value, int count, int columns);
    std::unique_ptr<Rows> fresh_rows();

    SqliteWriter& writer_;
    std::shared_ptr<Statements> statements_;  // shared with the queued jobs
    std::shared_ptr<Pool> pool_;
    int columns_, per_batch_;
    Rows rows_;
};

}  // namespace ringscope::sinks
