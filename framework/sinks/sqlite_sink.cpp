#include "framework/sinks/sqlite_sink.hpp"

#include <map>
#include <set>
#include <unordered_map>
#include <vector>

#include <sqlite3.h>
#include <unistd.h>

#include "framework/io/atomic_output.hpp"
#include "framework/text/text_escape.hpp"

namespace ringscope::sinks {
namespace {

std::string quote_ident(std::string_view s) {
    std::string q = "\"";
    for (char c : s) {
        if (c == '"') q += '"';
        q += c;
    }
    return q + "\"";
}

}  // namespace

struct SqliteSink::Impl {
    struct Column {
        FieldHandle handle;
        enum Kind : uint8_t { integer, text, blob } kind;
    };
    struct TypeState {
        sqlite3_stmt* insert = nullptr;
        std::vector<Column> columns;
        uint64_t count = 0;
        std::string table, system, name;  // copied: the trace's types are gone by finish()
    };
    struct CpuState {
        uint64_t events = 0, first = 0, last = 0;
    };
    struct InputState {
        std::string name, path;
        int cpus = 0;
        uint64_t events = 0;
        std::map<int, CpuState> cpu;
        std::map<int, std::string> tasks;
    };

    explicit Impl(std::string path) : out(std::move(path)) {}
    ~Impl() {
        for (auto& [t, s] : types)
            if (s.insert) sqlite3_finalize(s.insert);
        if (insert_event) sqlite3_finalize(insert_event);
        if (db) sqlite3_close(db);
    }

    Status exec(const std::string& sql) {
        char* msg = nullptr;
        if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
            std::string m = msg ? msg : "error";
            sqlite3_free(msg);
            return Error(Errc::io, out.temp_path() + ": " + m + " in: " + sql.substr(0, 200));
        }
        return {};
    }
    TypeState& type_state(const EventType& t) {
        auto [it, fresh] = types.try_emplace(&t);
        TypeState& s = it->second;
        if (!fresh) return s;
        std::string table = t.name;
        static const std::set<std::string> reserved = {"events", "tasks", "cpus", "inputs", "event_types"};
        if (reserved.count(table) || used_tables.count(table)) table = t.system + "_" + t.name;
        while (used_tables.count(table)) table += "_";
        used_tables.insert(table);
        s.table = table;
        s.system = t.system;
        s.name = t.name;
        // event_id rather than id: kernel fields are called id (raw_syscalls, ...).
        std::string create = "CREATE TABLE " + quote_ident(table) + " (event_id INTEGER PRIMARY KEY";
        std::string insert = "INSERT INTO " + quote_ident(table) + " VALUES (?";
        for (const auto& f : t.fields) {
            Column c{t.handle(f.name), Column::integer};
            const char* sqltype = "INTEGER";
            if (f.is_string()) {
                c.kind = Column::text;
                sqltype = "TEXT";
            } else if (f.is_dynamic() || f.array_len || f.size > 8) {
                c.kind = Column::blob;
                sqltype = "BLOB";
            }
            s.columns.push_back(c);
            create += ", " + quote_ident(f.name) + " " + sqltype;
            insert += ", ?";
        }
        create += ")";
        insert += ")";
        if (Status st = exec(create); !st) {
            failed = true;
            if (first_error.empty()) first_error = st.error().to_string();
            return s;
        }
        if (sqlite3_prepare_v2(db, insert.c_str(), -1, &s.insert, nullptr) != SQLITE_OK) {
            failed = true;
            if (first_error.empty()) first_error = sqlite3_errmsg(db);
        }
        return s;
    }

    io::AtomicOutput out;
    sqlite3* db = nullptr;
    sqlite3_stmt* insert_event = nullptr;
    std::unordered_map<const EventType*, TypeState> types;
    std::set<std::string> used_tables;
    std::map<int, InputState> inputs;
    int64_t next_id = 1;
    bool failed = false;
    std::string first_error;
};

SqliteSink::SqliteSink(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SqliteSink::~SqliteSink() = default;

Expected<std::unique_ptr<SqliteSink>> SqliteSink::create(const std::string& path) {
    auto impl = std::make_unique<Impl>(path);
    if (Status s = impl->out.create(); !s) return s.error();
    if (sqlite3_open(impl->out.temp_path().c_str(), &impl->db) != SQLITE_OK)
        return Error(Errc::io, impl->out.temp_path() + ": " + sqlite3_errmsg(impl->db));
    // One transaction, no journal: the file is private until renamed, so a crash only loses it.
    for (const char* sql :
         {"PRAGMA journal_mode=OFF", "PRAGMA synchronous=OFF", "BEGIN",
          "CREATE TABLE events (id INTEGER PRIMARY KEY, ts INTEGER NOT NULL, cpu INTEGER NOT NULL, pid "
          "INTEGER, "
          "comm TEXT, system TEXT NOT NULL, name TEXT NOT NULL, input INTEGER NOT NULL)",
          "CREATE TABLE tasks (input INTEGER, pid INTEGER, comm TEXT)",
          "CREATE TABLE cpus (input INTEGER, cpu INTEGER, events INTEGER, first_ts INTEGER, last_ts INTEGER)",
          "CREATE TABLE inputs (input INTEGER PRIMARY KEY, name TEXT, path TEXT, cpus INTEGER, events "
          "INTEGER)",
          "CREATE TABLE event_types (system TEXT, name TEXT, table_name TEXT, count INTEGER)"}) {
        if (Status s = impl->exec(sql); !s) return s.error();
    }
    if (sqlite3_prepare_v2(impl->db, "INSERT INTO events VALUES (?,?,?,?,?,?,?,?)", -1, &impl->insert_event,
                           nullptr) != SQLITE_OK)
        return Error(Errc::io, std::string("sqlite: ") + sqlite3_errmsg(impl->db));
    return std::unique_ptr<SqliteSink>(new SqliteSink(std::move(impl)));
}

Status SqliteSink::add_input(int input, const std::string& input_name, const std::string& path, int cpus) {
    auto& in = impl_->inputs[input];
    in.name = input_name;
    in.path = path;
    in.cpus = cpus;
    return {};
}

void SqliteSink::on_event(int input, const Event& ev) {
    Impl& m = *impl_;
    if (m.failed) return;
    const int64_t id = m.next_id++;
    const int pid = ev.pid();
    std::string_view comm = ev.comm();
    sqlite3_stmt* st = m.insert_event;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int64(st, 2, static_cast<int64_t>(ev.timestamp()));
    sqlite3_bind_int(st, 3, ev.cpu());
    sqlite3_bind_int(st, 4, pid);
    sqlite3_bind_text(st, 5, comm.data(), static_cast<int>(comm.size()), SQLITE_STATIC);
    sqlite3_bind_text(st, 6, ev.system().data(), static_cast<int>(ev.system().size()), SQLITE_STATIC);
    sqlite3_bind_text(st, 7, ev.name().data(), static_cast<int>(ev.name().size()), SQLITE_STATIC);
    sqlite3_bind_int(st, 8, input);
    if (sqlite3_step(st) != SQLITE_DONE && m.first_error.empty()) m.first_error = sqlite3_errmsg(m.db);
    sqlite3_reset(st);

    Impl::TypeState& ts = m.type_state(ev.type());
    if (!ts.insert) return;
    ++ts.count;
    sqlite3_bind_int64(ts.insert, 1, id);
    int col = 2;
    for (const auto& c : ts.columns) {
        switch (c.kind) {
            case Impl::Column::integer:
                sqlite3_bind_int64(ts.insert, col, ev.integer(c.handle));
                break;
            case Impl::Column::text: {
                std::string_view s = ev.str(c.handle);
                sqlite3_bind_text(ts.insert, col, s.data(), static_cast<int>(s.size()), SQLITE_STATIC);
                break;
            }
            case Impl::Column::blob: {
                auto b = ev.bytes(c.handle);
                sqlite3_bind_blob(ts.insert, col, b.data(), static_cast<int>(b.size()), SQLITE_STATIC);
                break;
            }
        }
        ++col;
    }
    if (sqlite3_step(ts.insert) != SQLITE_DONE && m.first_error.empty()) m.first_error = sqlite3_errmsg(m.db);
    sqlite3_reset(ts.insert);

    auto& in = m.inputs[input];
    ++in.events;
    auto& cs = in.cpu[ev.cpu()];
    if (cs.events++ == 0) cs.first = ev.timestamp();
    cs.last = ev.timestamp();
    if (pid > 0) {
        auto [it, fresh] = in.tasks.try_emplace(pid);
        if (fresh || it->second != comm) it->second.assign(comm);  // the latest name, as report shows
    }
}

Status SqliteSink::finish() {
    Impl& m = *impl_;
    if (m.failed || !m.first_error.empty())
        return Error(Errc::io, m.out.path() + ": sqlite: " +
                                   (m.first_error.empty() ? "table creation failed" : m.first_error));
    std::string sql;
    auto text = [](const std::string& s) {
        std::string q = "'";
        for (char c : s) {
            if (c == '\'') q += '\'';
            q += c;
        }
        return q + "'";
    };
    for (const auto& [i, in] : m.inputs) {
        sql += "INSERT INTO inputs VALUES (" + std::to_string(i) + "," + text(in.name) + "," + text(in.path) +
               "," + std::to_string(in.cpus) + "," + std::to_string(in.events) + ");";
        for (const auto& [cpu, c] : in.cpu)
            sql += "INSERT INTO cpus VALUES (" + std::to_string(i) + "," + std::to_string(cpu) + "," +
                   std::to_string(c.events) + "," + std::to_string(c.first) + "," + std::to_string(c.last) +
                   ");";
        for (const auto& [pid, comm] : in.tasks)
            sql += "INSERT INTO tasks VALUES (" + std::to_string(i) + "," + std::to_string(pid) + "," +
                   text(comm) + ");";
    }
    for (const auto& [t, s] : m.types)
        sql += "INSERT INTO event_types VALUES (" + text(s.system) + "," + text(s.name) + "," +
               text(s.table) + "," + std::to_string(s.count) + ");";
    // A view per event table with the common columns of `events` joined in: "SELECT ts, comm,
    // prev_state FROM v_sched_switch" rather than the join by hand.
    for (const auto& [t, s] : m.types) {
        std::string view = "v_" + s.table;
        while (m.used_tables.count(view)) view += "_";
        m.used_tables.insert(view);
        sql += "CREATE VIEW " + quote_ident(view) +
               " AS SELECT events.ts, events.cpu, events.pid, events.comm, events.input, t.* FROM " +
               quote_ident(s.table) + " AS t JOIN events ON events.id = t.event_id;";
    }
    sql += "CREATE INDEX events_ts ON events(ts); COMMIT;";
    if (Status s = m.exec(sql); !s) return s;
    for (auto& [t, s] : m.types) {
        sqlite3_finalize(s.insert);
        s.insert = nullptr;
    }
    sqlite3_finalize(m.insert_event);
    m.insert_event = nullptr;
    if (sqlite3_close(m.db) != SQLITE_OK) return Error(Errc::io, m.out.temp_path() + ": sqlite close failed");
    m.db = nullptr;
    return m.out.close();  // the caller commits every output at once
}

Status query_sqlite(const std::string& path, const std::string& sql, std::FILE* out, bool header) {
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
        std::string m = db ? sqlite3_errmsg(db) : "cannot open";
        sqlite3_close(db);
        return Error(Errc::io, path + ": " + m);
    }
    const char* tail = sql.c_str();
    Status result;
    while (tail && *tail) {
        sqlite3_stmt* st = nullptr;
        const char* start = tail;
        if (sqlite3_prepare_v2(db, tail, -1, &st, &tail) != SQLITE_OK) {
            result = Error(Errc::parse, "SQL at offset " + std::to_string(start - sql.c_str()) + ": " +
                                            sqlite3_errmsg(db));
            break;
        }
        if (!st) continue;  // whitespace or a comment
        int n = sqlite3_column_count(st);
        if (header && n > 0)
            for (int i = 0; i < n; ++i) std::fprintf(out, "%s%s", i ? "|" : "", sqlite3_column_name(st, i));
        if (header && n > 0) std::fputc('\n', out);
        int rc;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            for (int i = 0; i < n; ++i) {
                if (i) std::fputc('|', out);
                if (sqlite3_column_type(st, i) == SQLITE_BLOB) {
                    const auto* b = static_cast<const unsigned char*>(sqlite3_column_blob(st, i));
                    int len = sqlite3_column_bytes(st, i);
                    std::fputs("x'", out);
                    for (int k = 0; k < len; ++k) std::fprintf(out, "%02x", b[k]);
                    std::fputc('\'', out);
                } else if (const unsigned char* t = sqlite3_column_text(st, i)) {
                    // Comms and strings from a trace: printed for a terminal, controls escaped.
                    const std::string e = escaped(
                        std::string_view(reinterpret_cast<const char*>(t), sqlite3_column_bytes(st, i)),
                        TextTarget::terminal);
                    std::fwrite(e.data(), 1, e.size(), out);
                }
            }
            std::fputc('\n', out);
        }
        if (rc != SQLITE_DONE) result = Error(Errc::io, std::string("SQL: ") + sqlite3_errmsg(db));
        sqlite3_finalize(st);
        if (!result) break;
    }
    sqlite3_close(db);
    return result;
}

Status SqliteSink::commit() {
    return impl_->out.commit();
}

}  // namespace ringscope::sinks
