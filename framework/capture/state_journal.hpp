// The journal of tracing-state changes: before a capture changes a tracefs file, the value it
// replaces is appended to DIR/journal.<time>.<pid> (DIR: RINGSCOPE_JOURNAL_DIR, else /run/ringscope,
// else /var/tmp/ringscope). restore() puts the values back newest first and removes the file. The
// file is flock()ed while its process lives, so a journal nobody holds belongs to a process that was
// killed (SIGKILL, a crash): recover_journals() restores it. `start` keeps its journal as
// started.<time>.<pid>, which only `reset --restore` replays.
#pragma once

#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <ringscope/error.hpp>

namespace ringscope::capture {

enum class RestoreKind : char {
    value = 'v',     // written back as it was read (tracing_on, trace_clock, buffer_size_kb, options/X)
    lines = 'l',     // emptied, then each line appended (set_event, set_event_pid, set_ftrace_filter)
    filter = 'f',    // an event filter: "none" is cleared by writing "0"
    instance = 'i',  // an instance directory the capture created: removed
    trigger = 't',   // an event trigger the capture added: removed by writing '!' and its text
    capture = 'c',   // record's output: after a kill, assembled from its scratch files on recovery
};

struct JournalEntry {
    RestoreKind kind;
    std::string path;
    std::string value;
};

class StateJournal {
  public:
    static Expected<std::unique_ptr<StateJournal>> create();
    ~StateJournal();  // restore() unless restored or kept
    StateJournal(const StateJournal&) = delete;
    StateJournal& operator=(const StateJournal&) = delete;

    // Records the current value of `path` (once per path: the first value is the one to restore).
    Status save(const std::string& path, RestoreKind kind);
    // save(), then writes `value` (O_TRUNC) / appends it.
    Status set(const std::string& path, std::string_view value, RestoreKind kind);
    Status append(const std::string& path, std::string_view value, RestoreKind kind);
    // Creates the instance directory, journaled first (the entry is taken back if it exists).
    Status make_instance(const std::string& dir);
    // Appends TRIGGER to an event's trigger file (never O_TRUNC: that drops every trigger there),
    // journaled first so that restore() writes "!TRIGGER".
    Status add_trigger(const std::string& path, const std::string& trigger);
    // Names record's output (an absolute path), so that recovery assembles it when the process
    // is killed before writing it (capture_recovery.hpp). Nothing is put back for it.
    Status note_capture(const std::string& output);

    // Every value back, newest first; the file is removed when all of them went back. Idempotent.
    Status restore();
    // The changes stay (ringscope start): the journal becomes started.*, for `reset --restore`.
    Status keep();
    const std::string& path() const noexcept { return path_; }
    size_t size() const noexcept { return entries_.size(); }

  private:
    StateJournal() = default;
    Status open_file();
    Status add(JournalEntry e);

    std::string path_;
    int fd_ = -1;
    bool done_ = false;
    std::vector<JournalEntry> entries_;
    std::set<std::string> saved_;
};

std::string journal_dir();

// Restores the journals whose process is gone (and the started.* ones with include_started),
// newest first, each announced on `log`; the trace of a killed record is assembled (and said so). Returns how
// many journals were replayed; an error when one could not be read or put back completely (that journal is
// kept for the next try).
Expected<int> recover_journals(FILE* log, bool include_started);

// After `reset`: the started.* journals are dropped (what they would put back was reset). Count.
int discard_started_journals();

// Parsing and replay, for the recovery and the tests. Errors name the file and line.
Expected<std::vector<JournalEntry>> read_journal(const std::string& file);
Status apply_entries(const std::vector<JournalEntry>& entries);

}  // namespace ringscope::capture
