// SQLite output: queried with SQL like Perfetto's trace processor.
//   events(id, ts, cpu, pid, comm, system, name, input)   a view: one row per event, ts in ns, id
//        in time order (there is no index on ts: filter on id ranges where it matters)
//   event_rows(id, ts, cpu, pid, comm_id, type_id, input, f0, f1, ...)   the one table behind it:
//        comm and the event's name interned as integers (strings.id, event_types.id), the event's
//        fields in f0, f1, ... with their own types (integers INTEGER, u64 values above 2^63-1
//        wrapped as SQLite has no unsigned type; strings TEXT; other arrays BLOB; sched_switch's
//        prev_state as the letters report prints: S, R+, D|W). One row per event, appended in id
//        order: half the b-tree work of a row in a table per type, and 1 M events/s.
//   <event name>(event_id, <fields>)   a view per event type, its rows with the fields named;
//        event_id joins events.id. A name taken by another system or by a table below becomes
//        <system>_<name>; event_types(id, system, name, table_name, count) says which.
//   v_<table>(ts, cpu, pid, comm, input, event_id, <fields>)   the same with events' columns
//   strings(id, text)   tasks(input, pid, comm)   cpus(input, cpu, events, first_ts, last_ts)
//   inputs(input, name, path, cpus, events)
// Written in one transaction without a journal into a temporary file renamed at the end, rows
// inserted 256 per statement on a thread of their own (bench/sqlite: the rate against report).
#pragma once

#include <memory>
#include <string>

#include "framework/sinks/event_sink.hpp"

namespace ringscope::sinks {

class SqliteSink final : public EventSink {
  public:
    static Expected<std::unique_ptr<SqliteSink>> create(const std::string& path);
    ~SqliteSink() override;

    Status add_input(int input, const std::string& input_name, const std::string& path, int cpus) override;
    void on_event(int input, const Event& ev) override;
    Status finish() override;
    Status commit() override;

    struct Impl;

  private:
    explicit SqliteSink(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

// Runs `sql` on the database at `path` (read only) and prints rows as '|'-separated text, with a
// header line when `header` (as the sqlite3 shell does with -header). Errors name the statement.
Status query_sqlite(const std::string& path, const std::string& sql, std::FILE* out, bool header);

}  // namespace ringscope::sinks
