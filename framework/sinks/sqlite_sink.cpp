#include "framework/sinks/sqlite_sink.hpp"

#include <map>
#include <set>
#include <unordered_map>
#include <vector>

#include <sqlite3.h>
#include <unistd.h>

#include <ringscope/task_state.hpp>
#include <ringscope/text_buffer.hpp>

#include "framework/io/atomic_output.hpp"
#include "framework/sinks/sqlite_writer.hpp"
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
        enum Kind : uint8_t { integer, text, blob, task_state } kind;
    };
    struct TypeState {
        std::vector<Column> columns;
        std::vector<std::string> field_names;
        std::unique_ptr<sched::TaskStateNames> states;  // sched_switch: prev_state as report prints it
        int64_t id = 0;
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
        std::vector<CpuState> cpu;  // by CPU number
        std::map<int, std::string> tasks;
    };
    struct CommCache {
        std::string comm;
        int64_t id = -1;
    };

    explicit Impl(std::string path) : out(std::move(path)) {}
    ~Impl() {
        if (writer) (void)writer->finish();
        types.clear();
        events.reset();  // the statements before the connection
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
    // The types of the last two events answer most (sys_enter, sys_exit, sys_enter, ...).
    TypeState& type_state(const EventType& t) {
        if (recent[0].type == &t) return *recent[0].state;
        if (recent[1].type == &t) {
            std::swap(recent[0], recent[1]);
            return *recent[0].state;
        }
        return new_type_state(t);
    }
    TypeState& new_type_state(const EventType& t);
    // The id of `comm` in `strings`: the last name seen per pid answers nearly every event. A new
    // name is also the task's latest in `tasks`, as report shows it.
    int64_t comm_id(int input, InputState& in, int pid, std::string_view comm) {
        const uint64_t key = (static_cast<uint64_t>(input) << 32) | static_cast<uint32_t>(pid);
        if (key != last_comm_key || !last_comm) {  // the task of the event before, most often
            last_comm_key = key;
            last_comm = &comm_by_pid[key];
        }
        CommCache& c = *last_comm;
        if (c.id >= 0 && c.comm == comm) return c.id;
        c.comm.assign(comm);
        if (pid > 0) in.tasks[pid].assign(comm);
        auto [it, fresh] = string_ids.try_emplace(c.comm, static_cast<int64_t>(strings.size()));
        if (fresh) strings.push_back(c.comm);
        return c.id = it->second;
    }
    InputState& input_state(int input) {
        if (input != last_input) {
            last_input = input;
            last_input_state = &inputs[input];
        }
        return *last_input_state;
    }
    // event_rows gets the columns f<N> up to the widest event type's field count.
    void widen(size_t fields) {
        events->retire();
        for (; field_columns < fields; ++field_columns)
            writer->exec("ALTER TABLE event_rows ADD COLUMN f" + std::to_string(field_columns));
        events =
            std::make_unique<BatchInsert>(*writer, "event_rows", kCommonColumns + static_cast<int>(fields));
    }
    void add_field(TypeState& ts, const Column& c, const Event& ev) {
        BatchInsert& b = *events;
        switch (c.kind) {
            case Column::integer:
                b.add_int(ev.integer(c.handle));
                break;
            case Column::text:
                b.add_text(ev.str(c.handle));
                break;
            case Column::blob:
                b.add_blob(ev.bytes(c.handle));
                break;
            case Column::task_state:
                state_text.clear();
                ts.states->append(static_cast<uint64_t>(ev.integer(c.handle)), state_text);
                b.add_text(state_text.view());
                break;
        }
    }

    io::AtomicOutput out;
    sqlite3* db = nullptr;
    std::unique_ptr<SqliteWriter> writer;  // every statement from create() to finish()
    std::unique_ptr<BatchInsert> events;
    std::unordered_map<const EventType*, TypeState> types;
    std::set<std::string> used_tables;
    std::map<int, InputState> inputs;
    std::unordered_map<uint64_t, CommCache> comm_by_pid;
    std::unordered_map<std::string, int64_t> string_ids;
    std::vector<std::string> strings;
    TextBuffer state_text;
    size_t field_columns = 0;
    int last_input = -1;
    InputState* last_input_state = nullptr;
    uint64_t last_comm_key = 0;
    CommCache* last_comm = nullptr;  // unordered_map nodes stay where they are
    struct Recent {
        const EventType* type = nullptr;
        TypeState* state = nullptr;  // types' nodes stay where they are
    } recent[2];
    static constexpr int kCommonColumns = 7;  // id, ts, cpu, pid, comm_id, type_id, input
};

SqliteSink::Impl::TypeState& SqliteSink::Impl::new_type_state(const EventType& t) {
    auto [it, fresh] = types.try_emplace(&t);
    TypeState& s = it->second;
    recent[1] = recent[0];
    recent[0] = {&t, &s};
    if (!fresh) return s;
    std::string table = t.name;
    static const std::set<std::string> reserved = {"events", "event_rows", "strings",    "tasks",
                                                   "cpus",   "inputs",     "event_types"};
    if (reserved.count(table) || used_tables.count(table)) table = t.system + "_" + t.name;
    while (used_tables.count(table)) table += "_";
    used_tables.insert(table);
    s.id = static_cast<int64_t>(types.size());
    s.table = table;
    s.system = t.system;
    s.name = t.name;
    const bool sched_switch = t.system == "sched" && t.name == "sched_switch";
    for (const auto& f : t.fields) {
        Column c{t.handle(f.name), Column::integer};
        if (f.is_string())
            c.kind = Column::text;
        else if (f.is_dynamic() || f.array_len || f.size > 8)
            c.kind = Column::blob;
        else if (sched_switch && f.name == "prev_state") {
            c.kind = Column::task_state;
            s.states = std::make_unique<sched::TaskStateNames>(&t);
        }
        s.columns.push_back(c);
        s.field_names.push_back(f.name);
    }
    if (s.columns.size() > field_columns) widen(s.columns.size());
    return s;
}

SqliteSink::SqliteSink(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SqliteSink::~SqliteSink() = default;

Expected<std::unique_ptr<SqliteSink>> SqliteSink::create(const std::string& path) {
    auto impl = std::make_unique<Impl>(path);
    if (Status s = impl->out.create(); !s) return s.error();
    // One connection on one thread: no mutexes (they cost ~6 % of a write).
    if (sqlite3_open_v2(impl->out.temp_path().c_str(), &impl->db,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                        nullptr) != SQLITE_OK)
        return Error(Errc::io, impl->out.temp_path() + ": " + sqlite3_errmsg(impl->db));
    // One transaction, no journal: the file is private until renamed, so a crash only loses it.
    for (const char* sql :
         {"PRAGMA page_size=16384", "PRAGMA journal_mode=OFF", "PRAGMA synchronous=OFF",
          "PRAGMA locking_mode=EXCLUSIVE", "PRAGMA cache_size=-16384", "BEGIN",
          // The f<N> columns, added as wider event types come, have no type: each value keeps its own.
          "CREATE TABLE event_rows (id INTEGER PRIMARY KEY, ts INTEGER NOT NULL, cpu INTEGER NOT NULL, "
          "pid INTEGER, comm_id INTEGER, type_id INTEGER NOT NULL, input INTEGER NOT NULL)",
          "CREATE TABLE strings (id INTEGER PRIMARY KEY, text TEXT)",
          "CREATE TABLE tasks (input INTEGER, pid INTEGER, comm TEXT, PRIMARY KEY (input, pid)) WITHOUT "
          "ROWID",
          "CREATE TABLE cpus (input INTEGER, cpu INTEGER, events INTEGER, first_ts INTEGER, last_ts INTEGER)",
          "CREATE TABLE inputs (input INTEGER PRIMARY KEY, name TEXT, path TEXT, cpus INTEGER, events "
          "INTEGER)",
          "CREATE TABLE event_types (id INTEGER PRIMARY KEY, system TEXT, name TEXT, table_name TEXT, count "
          "INTEGER)",
          // The strings spelled out, as the rows were before they were interned.
          "CREATE VIEW events AS SELECT r.id AS id, r.ts AS ts, r.cpu AS cpu, r.pid AS pid, c.text AS comm, "
          "t.system AS system, t.name AS name, r.input AS input FROM event_rows AS r LEFT JOIN strings AS c "
          "ON c.id = r.comm_id LEFT JOIN event_types AS t ON t.id = r.type_id"}) {
        if (Status s = impl->exec(sql); !s) return s.error();
    }
    impl->writer = std::make_unique<SqliteWriter>(impl->db);
    impl->events = std::make_unique<BatchInsert>(*impl->writer, "event_rows", Impl::kCommonColumns);
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
    Impl::TypeState& ts = m.type_state(ev.type());  // first: it may widen event_rows
    Impl::InputState& in = m.input_state(input);
    const int pid = ev.pid();
    const int cpu = ev.cpu();
    BatchInsert& e = *m.events;
    e.add_null();  // the next rowid, as id: SQLite appends without a search
    e.add_int(static_cast<int64_t>(ev.timestamp()));
    e.add_int(cpu);
    e.add_int(pid);
    e.add_int(m.comm_id(input, in, pid, ev.comm()));
    e.add_int(ts.id);
    e.add_int(input);
    for (const auto& c : ts.columns) m.add_field(ts, c, ev);
    e.add_nulls(static_cast<int>(m.field_columns - ts.columns.size()));
    e.end_row();
    ++ts.count;

    ++in.events;
    if (cpu >= 0) {
        if (static_cast<size_t>(cpu) >= in.cpu.size()) in.cpu.resize(static_cast<size_t>(cpu) + 1);
        auto& cs = in.cpu[static_cast<size_t>(cpu)];
        if (cs.events++ == 0) cs.first = ev.timestamp();
        cs.last = ev.timestamp();
    }
}

Status SqliteSink::finish() {
    Impl& m = *impl_;
    m.events->flush();
    Status written = m.writer->finish();
    m.writer.reset();
    m.events.reset();
    if (!written) return Error(Errc::io, m.out.path() + ": " + written.error().to_string());
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
        for (size_t cpu = 0; cpu < in.cpu.size(); ++cpu) {
            const auto& c = in.cpu[cpu];
            if (c.events == 0) continue;
            sql += "INSERT INTO cpus VALUES (" + std::to_string(i) + "," + std::to_string(cpu) + "," +
                   std::to_string(c.events) + "," + std::to_string(c.first) + "," + std::to_string(c.last) +
                   ");";
        }
        for (const auto& [pid, comm] : in.tasks)
            sql += "INSERT INTO tasks VALUES (" + std::to_string(i) + "," + std::to_string(pid) + "," +
                   text(comm) + ");";
    }
    for (size_t i = 0; i < m.strings.size(); ++i)
        sql += "INSERT INTO strings VALUES (" + std::to_string(i) + "," + text(m.strings[i]) + ");";
    for (const auto& [t, s] : m.types)
        sql += "INSERT INTO event_types VALUES (" + std::to_string(s.id) + "," + text(s.system) + "," +
               text(s.name) + "," + text(s.table) + "," + std::to_string(s.count) + ");";
    // Per event type a view of its rows with the fields named, and one with the common columns of
    // `events` joined in: "SELECT ts, comm, prev_state FROM v_sched_switch" rather than the join by hand.
    for (const auto& [t, s] : m.types) {
        std::string fields;
        for (size_t k = 0; k < s.field_names.size(); ++k)
            fields += ", r.f" + std::to_string(k) + " AS " + quote_ident(s.field_names[k]);
        const std::string where = " WHERE r.type_id = " + std::to_string(s.id) + ";";
        sql += "CREATE VIEW " + quote_ident(s.table) + " AS SELECT r.id AS event_id" + fields +
               " FROM event_rows AS r" + where;
        std::string view = "v_" + s.table;
        while (m.used_tables.count(view)) view += "_";
        m.used_tables.insert(view);
        sql += "CREATE VIEW " + quote_ident(view) +
               " AS SELECT r.ts AS ts, r.cpu AS cpu, r.pid AS pid, c.text AS comm, r.input AS input, r.id AS "
               "event_id" +
               fields + " FROM event_rows AS r LEFT JOIN strings AS c ON c.id = r.comm_id" + where;
    }
    sql += "COMMIT;";
    if (Status s = m.exec(sql); !s) return s;
    m.types.clear();
    m.recent[0] = m.recent[1] = {};
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
