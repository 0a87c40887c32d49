#include "framework/capture/state_journal.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "framework/capture/capture_recovery.hpp"
#include "framework/tracefs/file_io.hpp"

namespace ringscope::capture {

namespace {

constexpr std::string_view kHeader = "ringscope-journal 1\n";

Error sys_error(const std::string& path, const char* what, int err) {
    return Error(Errc::io, std::string(what) + ": " + std::strerror(err)).in_file(path);
}

std::string escape(std::string_view s) {
    std::string out;
    for (char c : s) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '\n')
            out += "\\n";
        else if (c == '\t')
            out += "\\t";
        else
            out += c;
    }
    return out;
}

bool unescape(std::string_view s, std::string& out) {
    out.clear();
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '\\') {
            out += s[i];
            continue;
        }
        if (++i == s.size()) return false;
        if (s[i] == 'n')
            out += '\n';
        else if (s[i] == 't')
            out += '\t';
        else if (s[i] == '\\')
            out += '\\';
        else
            return false;
    }
    return true;
}

std::string strip(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
}

// What to write back: the selected "[clock]", the expanded buffer size of "7 (expanded: 1408)"
// (writing 7 would shrink it), the text otherwise.
std::string normalize(const std::string& path, std::string text) {
    text = strip(std::move(text));
    if (const size_t open = text.find('['), close = text.find(']');
        open != std::string::npos && close != std::string::npos && close > open && path.size() >= 11 &&
        path.compare(path.size() - 11, 11, "trace_clock") == 0)
        return text.substr(open + 1, close - open - 1);
    if (const size_t ex = text.find("(expanded: "); ex != std::string::npos) {
        const size_t end = text.find(')', ex);
        return text.substr(ex + 11, end == std::string::npos ? std::string::npos : end - ex - 11);
    }
    return text;
}

Status write_back(const JournalEntry& e) {
    switch (e.kind) {
        case RestoreKind::value:
            return tracefs::write_text_file(e.path, e.value, false);
        case RestoreKind::filter:
            return tracefs::write_text_file(e.path, e.value == "none" || e.value.empty() ? "0" : e.value,
                                            false);
        case RestoreKind::lines: {
            if (Status st = tracefs::write_text_file(e.path, "", false); !st) return st;
            size_t pos = 0;
            while (pos < e.value.size()) {
                size_t nl = e.value.find('\n', pos);
                if (nl == std::string::npos) nl = e.value.size();
                const std::string line = e.value.substr(pos, nl - pos);
                pos = nl + 1;
                if (line.empty() || line[0] == '#') continue;  // "#### all functions enabled ####"
                if (Status st = tracefs::write_text_file(e.path, line + "\n", true); !st) return st;
            }
            return {};
        }
        case RestoreKind::instance: {
            // rmdir fails with EBUSY for a moment after the last reader closed: retry briefly.
            for (int i = 0; i < 100; ++i) {
                if (::rmdir(e.path.c_str()) == 0 || errno == ENOENT) return {};
                if (errno != EBUSY) break;
                ::usleep(10000);
            }
            return sys_error(e.path, "cannot remove instance", errno);
        }
        case RestoreKind::trigger: {
            Status st = tracefs::write_text_file(e.path, "!" + e.value, true);
            if (st) return st;
            // Already gone (removed by hand, or its event's instance): nothing to put back.
            const std::string cmd = e.value.substr(0, e.value.find_first_of(": "));
            auto now = tracefs::read_text_file(e.path);
            if (!now || (now->rfind(cmd, 0) != 0 && now->find("\n" + cmd) == std::string::npos)) return {};
            return st;
        }
        case RestoreKind::capture:
            return {};  // the data, not the tracing state: recover_journals() assembles it
    }
    return Error(Errc::invalid_argument, "unknown journal entry").in_file(e.path);
}

uint64_t now_ns() {
    timespec ts{};
    ::clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

// The trace of a record killed before it wrote it, from its scratch files. A head already gone:
// the recording finished (a `record -k` journal) or was recovered by hand.
void recover_captures(const std::vector<JournalEntry>& entries, const std::string& pid, FILE* log) {
    for (const JournalEntry& e : entries) {
        if (e.kind != RestoreKind::capture) continue;
        auto r = recover_capture(e.path);
        if (!log || (!r && r.error().code() == Errc::not_found)) continue;
        if (r)
            std::fprintf(log,
                         "ringscope: saved the trace of the record killed as pid %s: %s (%llu bytes of data "
                         "from %zu CPUs, each up to its last whole sub-buffer)\n",
                         pid.c_str(), e.path.c_str(), static_cast<unsigned long long>(r->bytes), r->cpus);
        else
            std::fprintf(log,
                         "ringscope: the trace of the record killed as pid %s could not be saved: %s (its "
                         "files are kept: ringscope record --recover %s)\n",
                         pid.c_str(), r.error().to_string().c_str(), e.path.c_str());
    }
}

}  // namespace

std::string journal_dir() {
    if (const char* env = std::getenv("RINGSCOPE_JOURNAL_DIR"); env && *env) return env;
    struct stat st {};
    if (::stat("/run", &st) == 0 && S_ISDIR(st.st_mode) && ::access("/run", W_OK) == 0)
        return "/run/ringscope";
    return "/var/tmp/ringscope";
}

Expected<std::unique_ptr<StateJournal>> StateJournal::create() {
    return std::unique_ptr<StateJournal>(new StateJournal());
}

// The file is made on the first change: a command refused before it changes anything leaves none.
Status StateJournal::open_file() {
    if (fd_ >= 0) return {};
    const std::string dir = journal_dir();
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
        return sys_error(dir, "cannot create the tracing-state journal directory", errno);
    char name[96];
    std::snprintf(name, sizeof name, "%020llu.%d", static_cast<unsigned long long>(now_ns()),
                  static_cast<int>(::getpid()));
    // Locked under a name recovery ignores, then renamed: recovery never sees it unlocked.
    const std::string tmp = dir + "/tmp." + name, path = dir + "/journal." + name;
    const int fd = ::open(tmp.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return sys_error(tmp, "cannot create the tracing-state journal", errno);
    if (::flock(fd, LOCK_EX) != 0 ||
        ::write(fd, kHeader.data(), kHeader.size()) != static_cast<ssize_t>(kHeader.size()) ||
        ::rename(tmp.c_str(), path.c_str()) != 0) {
        const int err = errno;
        ::unlink(tmp.c_str());
        ::close(fd);
        return sys_error(path, "cannot write the tracing-state journal", err);
    }
    fd_ = fd;
    path_ = path;
    return {};
}

StateJournal::~StateJournal() {
    if (!done_) (void)restore();
    if (fd_ >= 0) ::close(fd_);
}

Status StateJournal::add(JournalEntry e) {
    if (Status st = open_file(); !st) return st;
    std::string line(1, static_cast<char>(e.kind));
    line += '\t';
    line += escape(e.path);
    line += '\t';
    line += escape(e.value);
    line += '\n';
    // The entry is in the file before the change is made; a torn last line is ignored on replay.
    if (::write(fd_, line.data(), line.size()) != static_cast<ssize_t>(line.size()))
        return sys_error(path_, "cannot write the tracing-state journal", errno ? errno : ENOSPC);
    entries_.push_back(std::move(e));
    return {};
}

Status StateJournal::save(const std::string& path, RestoreKind kind) {
    if (saved_.count(path)) return {};
    auto cur = tracefs::read_text_file(path);
    if (!cur) return std::move(cur).error();
    std::string value = kind == RestoreKind::lines ? std::move(*cur) : normalize(path, std::move(*cur));
    if (Status st = add({kind, path, std::move(value)}); !st) return st;
    saved_.insert(path);
    return {};
}

Status StateJournal::set(const std::string& path, std::string_view value, RestoreKind kind) {
    if (Status st = save(path, kind); !st) return st;
    return tracefs::write_text_file(path, value, false);
}

Status StateJournal::append(const std::string& path, std::string_view value, RestoreKind kind) {
    if (Status st = save(path, kind); !st) return st;
    return tracefs::write_text_file(path, value, true);
}

Status StateJournal::make_instance(const std::string& dir) {
    if (Status st = open_file(); !st) return st;
    const off_t before = ::lseek(fd_, 0, SEEK_CUR);
    if (Status st = add({RestoreKind::instance, dir, ""}); !st) return st;
    if (::mkdir(dir.c_str(), 0755) == 0) return {};
    const int err = errno;
    // Not ours (it existed) or not made: take the entry back so that nothing removes it.
    entries_.pop_back();
    if (::ftruncate(fd_, before) != 0 || ::lseek(fd_, before, SEEK_SET) != before)
        return sys_error(path_, "cannot write the tracing-state journal", errno);
    if (err == EEXIST)
        return Error(Errc::invalid_argument,
                     "instance already exists (another tracer may own it; remove it with rmdir or choose "
                     "another name)")
            .in_file(dir);
    return sys_error(dir, "cannot create instance (is tracefs writable? root needed)", err);
}

Status StateJournal::add_trigger(const std::string& path, const std::string& trigger) {
    if (Status st = add({RestoreKind::trigger, path, trigger}); !st) return st;
    return tracefs::write_text_file(path, trigger, true);
}

Status StateJournal::note_capture(const std::string& output) {
    return add({RestoreKind::capture, output, ""});
}

Status StateJournal::restore() {
    if (done_) return {};
    done_ = true;
    std::vector<JournalEntry> rev(entries_.rbegin(), entries_.rend());
    Status st = apply_entries(rev);
    if (st && fd_ >= 0) ::unlink(path_.c_str());
    return st;
}

Status StateJournal::keep() {
    if (done_) return {};
    done_ = true;
    if (fd_ < 0) return {};
    const size_t slash = path_.rfind('/');
    const std::string kept = path_.substr(0, slash) + "/started." + path_.substr(slash + 9);
    if (entries_.empty()) {
        ::unlink(path_.c_str());
        return {};
    }
    if (::rename(path_.c_str(), kept.c_str()) != 0) return sys_error(path_, "cannot keep the journal", errno);
    path_ = kept;
    return {};
}

Status apply_entries(const std::vector<JournalEntry>& entries) {
    Status first;
    for (const JournalEntry& e : entries)
        if (Status st = write_back(e); !st && first) first = std::move(st);
    return first;
}

Expected<std::vector<JournalEntry>> read_journal(const std::string& file) {
    auto text = tracefs::read_text_file(file);
    if (!text) return std::move(text).error();
    if (text->compare(0, kHeader.size(), kHeader) != 0)
        return Error(Errc::bad_magic, "not a ringscope journal").in_file(file).at_line(1);
    std::vector<JournalEntry> out;
    size_t pos = kHeader.size();
    int line_no = 1;
    while (pos < text->size()) {
        const size_t nl = text->find('\n', pos);
        ++line_no;
        if (nl == std::string::npos) break;  // torn by a kill while writing: its change was not made
        const std::string_view line(text->data() + pos, nl - pos);
        pos = nl + 1;
        const size_t t1 = line.find('\t'), t2 = t1 == std::string_view::npos ? t1 : line.find('\t', t1 + 1);
        JournalEntry e{static_cast<RestoreKind>(line.empty() ? 0 : line[0]), {}, {}};
        const bool kind_ok = e.kind == RestoreKind::value || e.kind == RestoreKind::lines ||
                             e.kind == RestoreKind::filter || e.kind == RestoreKind::instance ||
                             e.kind == RestoreKind::trigger || e.kind == RestoreKind::capture;
        if (t1 != 1 || t2 == std::string_view::npos || !kind_ok ||
            !unescape(line.substr(t1 + 1, t2 - t1 - 1), e.path) || !unescape(line.substr(t2 + 1), e.value) ||
            e.path.empty() || e.path[0] != '/')
            return Error(Errc::corrupt, "bad journal entry").in_file(file).at_line(line_no);
        out.push_back(std::move(e));
    }
    return out;
}

int discard_started_journals() {
    const std::string dir = journal_dir();
    DIR* d = ::opendir(dir.c_str());
    if (!d) return 0;
    int n = 0;
    while (dirent* e = ::readdir(d)) {
        const std::string name = e->d_name;
        if (name.rfind("started.", 0) == 0 && ::unlink((dir + "/" + name).c_str()) == 0) ++n;
    }
    ::closedir(d);
    return n;
}

Expected<int> recover_journals(FILE* log, bool include_started) {
    const std::string dir = journal_dir();
    DIR* d = ::opendir(dir.c_str());
    if (!d) return 0;  // no journal was ever written here
    std::vector<std::string> names;
    while (dirent* e = ::readdir(d)) {
        const std::string n = e->d_name;
        if (n.rfind("journal.", 0) == 0 || (include_started && n.rfind("started.", 0) == 0))
            names.push_back(n);
    }
    ::closedir(d);
    // Newest first: an older journal's values are the ones from before every later change.
    std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
        return a.substr(a.find('.')) > b.substr(b.find('.'));
    });
    int done = 0;
    Status first;
    for (const std::string& n : names) {
        const std::string path = dir + "/" + n;
        const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
        if (fd < 0) continue;
        struct stat st {};
        // Held: its process is alive. Unlinked meanwhile: another recovery did it.
        if (::flock(fd, LOCK_EX | LOCK_NB) != 0 || ::fstat(fd, &st) != 0 || st.st_nlink == 0) {
            ::close(fd);
            continue;
        }
        auto entries = read_journal(path);
        Status applied;
        if (entries) {
            std::reverse(entries->begin(), entries->end());
            applied = apply_entries(*entries);
        }
        const std::string pid = n.substr(n.rfind('.') + 1);
        if (!entries || !applied) {
            const Error& e = entries ? applied.error() : entries.error();
            if (log)
                std::fprintf(log,
                             "ringscope: restoring the tracing state left by ringscope pid %s failed: %s "
                             "(journal kept: %s)\n",
                             pid.c_str(), e.to_string().c_str(), path.c_str());
            if (first) first = Status(e);
        } else {
            ::unlink(path.c_str());
            ++done;
            if (log)
                std::fprintf(log,
                             "ringscope: restored the tracing state %s by ringscope pid %s (%zu settings, "
                             "journal %s)\n",
                             n[0] == 's' ? "changed by `start`" : "left behind", pid.c_str(), entries->size(),
                             path.c_str());
        }
        if (entries) recover_captures(*entries, pid, log);
        ::close(fd);
    }
    if (!first) return first.error();
    return done;
}

}  // namespace ringscope::capture
