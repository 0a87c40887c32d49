#include "framework/sinks/sqlite_writer.hpp"

#include <algorithm>

#include <sqlite3.h>

namespace ringscope::sinks {
namespace {

std::string insert_sql(const std::string& table, int columns, int rows) {
    std::string row = "(?";
    for (int c = 1; c < columns; ++c) row += ",?";
    row += ")";
    std::string sql = "INSERT INTO " + table + " VALUES " + row;
    for (int r = 1; r < rows; ++r) sql += "," + row;
    return sql;
}

}  // namespace

SqliteWriter::SqliteWriter(sqlite3* db) : db_(db), thread_([this] { loop(); }) {}

SqliteWriter::~SqliteWriter() {
    (void)finish();
}

void SqliteWriter::loop() {
    std::vector<Job> jobs;
    for (;;) {
        bool wake_submitter;
        {
            std::unique_lock lock(mu_);
            writer_waits_ = true;
            has_work_.wait(lock, [&] { return stop_ || queue_.size() >= kWakeAt; });
            writer_waits_ = false;
            if (queue_.empty()) return;  // stopped and drained
            jobs.swap(queue_);
            wake_submitter = submitter_waits_;
        }
        if (wake_submitter) has_room_.notify_one();
        for (Job& job : jobs) {
            if (first_error_) {
                Status s = job(db_);  // first_error_ is this thread's until finish() joins it
                if (!s) first_error_ = s;
            }
            job = nullptr;  // its rows freed on this thread, as they are written
        }
        jobs.clear();
    }
}

void SqliteWriter::submit(Job job) {
    std::unique_lock lock(mu_);
    if (queue_.size() >= kMaxQueued) {
        submitter_waits_ = true;
        has_room_.wait(lock, [&] { return queue_.size() < kMaxQueued; });
        submitter_waits_ = false;
    }
    queue_.push_back(std::move(job));
    const bool wake = writer_waits_ && queue_.size() >= kWakeAt;
    lock.unlock();
    if (wake) has_work_.notify_one();
}

void SqliteWriter::exec(std::string sql) {
    submit([sql = std::move(sql)](sqlite3* db) -> Status {
        char* msg = nullptr;
        if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &msg) == SQLITE_OK) return {};
        std::string m = msg ? msg : "error";
        sqlite3_free(msg);
        return Error(Errc::io, "sqlite: " + m + " in: " + sql.substr(0, 200));
    });
}

Status SqliteWriter::finish() {
    {
        std::lock_guard lock(mu_);
        stop_ = true;
    }
    has_work_.notify_one();
    if (thread_.joinable()) thread_.join();
    return first_error_;
}

struct BatchInsert::Statements {
    sqlite3_stmt* many = nullptr;  // per_batch rows
    sqlite3_stmt* one = nullptr;   // the rest at the end
    // What each variable holds: short events leave the wide rows' last columns NULL row after row,
    // and columns such as input or cpu repeat their values.
    std::vector<Bound> many_bound, one_bound;
    ~Statements() {
        sqlite3_finalize(many);
        sqlite3_finalize(one);
    }
};

struct BatchInsert::Pool {
    std::mutex mu;
    std::vector<std::unique_ptr<Rows>> free;
};

BatchInsert::BatchInsert(SqliteWriter& writer, const std::string& table, int columns)
    : writer_(writer),
      statements_(std::make_shared<Statements>()),
      pool_(std::make_shared<Pool>()),
      columns_(columns) {
    // 256 rows, fewer for wide tables: a statement's variables are limited (32766 since 3.32).
    per_batch_ = std::clamp(8000 / std::max(columns, 1), 1, 256);
    rows_.values.reset(new Value[static_cast<size_t>(columns) * per_batch_]);
    writer_.submit([st = statements_, table, columns, n = per_batch_](sqlite3* db) -> Status {
        st->many_bound.assign(static_cast<size_t>(columns) * n, Bound{});
        st->one_bound.assign(static_cast<size_t>(columns), Bound{});
        if (sqlite3_prepare_v2(db, insert_sql(table, columns, 1).c_str(), -1, &st->one, nullptr) !=
                SQLITE_OK ||
            (n > 1 && sqlite3_prepare_v2(db, insert_sql(table, columns, n).c_str(), -1, &st->many, nullptr) !=
                          SQLITE_OK))
            return Error(Errc::io, "sqlite: " + table + ": " + sqlite3_errmsg(db));
        return {};
    });
}

Status BatchInsert::run(sqlite3* db, sqlite3_stmt* st, std::vector<Bound>& bound, const Rows& rows,
                        size_t first_value, int count, int columns) {
    const size_t n = static_cast<size_t>(count) * columns;
    for (size_t k = 0; k < n; ++k) {
        const Value& v = rows.values[first_value + k];
        const int col = static_cast<int>(k) + 1;
        const char* p = rows.arena.data() + v.offset;
        Bound& b = bound[k];
        // Bindings outlive sqlite3_reset: a NULL or an integer the variable holds already stays.
        if (v.kind == b.kind && (v.kind == Value::null || (v.kind == Value::integer && v.i == b.i))) continue;
        b = {v.i, v.kind};
        switch (v.kind) {
            case Value::integer:
                sqlite3_bind_int64(st, col, v.i);
                break;
            case Value::text:
                sqlite3_bind_text(st, col, p, static_cast<int>(v.size), SQLITE_STATIC);
                break;
            case Value::blob:
                sqlite3_bind_blob(st, col, p, static_cast<int>(v.size), SQLITE_STATIC);
                break;
            case Value::null:
                sqlite3_bind_null(st, col);
                break;
        }
    }
    const int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) return Error(Errc::io, std::string("sqlite: ") + sqlite3_errmsg(db));
    return {};
}

std::unique_ptr<BatchInsert::Rows> BatchInsert::fresh_rows() {
    {
        std::lock_guard lock(pool_->mu);
        if (!pool_->free.empty()) {
            std::unique_ptr<Rows> r = std::move(pool_->free.back());
            pool_->free.pop_back();
            return r;
        }
    }
    auto r = std::make_unique<Rows>();
    r->values.reset(new Value[static_cast<size_t>(columns_) * per_batch_]);
    return r;
}

void BatchInsert::flush() {
    if (rows_.count == 0) return;
    const bool full = rows_.count == per_batch_;
    std::unique_ptr<Rows> next = fresh_rows();
    std::swap(rows_, *next);
    // std::function wants a copyable job; the rows go back to the pool once written.
    std::shared_ptr<Rows> rows(next.release(), [pool = pool_](Rows* r) {
        r->used = 0;
        r->count = 0;
        r->arena.clear();
        std::lock_guard lock(pool->mu);
        pool->free.emplace_back(r);
    });
    writer_.submit([st = statements_, rows, columns = columns_, full](sqlite3* db) -> Status {
        if (full && st->many) return run(db, st->many, st->many_bound, *rows, 0, rows->count, columns);
        for (int r = 0; r < rows->count; ++r)
            if (Status s =
                    run(db, st->one, st->one_bound, *rows, static_cast<size_t>(r) * columns, 1, columns);
                !s)
                return s;
        return {};
    });
}

void BatchInsert::retire() {
    flush();
    writer_.submit([st = std::move(statements_)](sqlite3*) mutable -> Status {
        st.reset();
        return {};
    });
}

}  // namespace ringscope::sinks
