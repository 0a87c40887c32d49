// `ringscope show` (the trace, snapshot or trace_pipe text, or one setting) and `ringscope list`
// (events, systems, tracers, options, functions, clocks, instances, compressions), as trace-cmd's.
#include <fcntl.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <ringscope/tracefs.hpp>

#include "framework/capture/tracefs_admin.hpp"
#include "framework/cli/tracefs_commands.hpp"
#include "framework/tracefs/file_io.hpp"

namespace ringscope::cli {

namespace {

int fail(CliContext& ctx, const char* command, const Error& e) {
    ctx.error(std::string(command) + ": " + e.to_string());
    return kExitRuntime;
}

// Copies a tracefs file to stdout; trace_pipe blocks for more until a signal or stdout fails.
int copy_to_stdout(CliContext& ctx, const std::string& path, bool pipe) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | (pipe ? O_NONBLOCK : 0));
    if (fd < 0)
        return fail(ctx, "show",
                    Error(Errc::io, std::string("cannot open: ") + std::strerror(errno)).in_file(path));
    sigset_t set, old;
    sigemptyset(&set);
    for (int s : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) sigaddset(&set, s);
    if (pipe) pthread_sigmask(SIG_BLOCK, &set, &old);
    char buf[65536];
    int rc = kExitOk;
    for (;;) {
        if (pipe) {
            timespec zero{0, 0};
            siginfo_t info;
            if (sigtimedwait(&set, &info, &zero) > 0) break;
        }
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) {
            pollfd p{fd, POLLIN, 0};
            ::poll(&p, 1, 100);
            continue;
        }
        if (n < 0) {
            rc = fail(ctx, "show",
                      Error(Errc::io, std::string("read failed: ") + std::strerror(errno)).in_file(path));
            break;
        }
        if (n == 0) break;
        if (std::fwrite(buf, 1, static_cast<size_t>(n), stdout) != static_cast<size_t>(n) ||
            std::fflush(stdout)) {
            if (errno != EPIPE) rc = kExitRuntime;
            break;
        }
    }
    ::close(fd);
    if (pipe) {
        timespec zero{0, 0};
        siginfo_t info;
        while (sigtimedwait(&set, &info, &zero) > 0) {
        }
        pthread_sigmask(SIG_SETMASK, &old, nullptr);
    }
    return rc;
}

// trace-cmd list's event match: a basic regex, case-insensitive, on the system or the event name;
// "SYS:EV" matches each part on its own.
class EventMatch {
  public:
    bool compile(const std::string& pattern) {
        if (pattern.empty()) return true;
        const size_t colon = pattern.find(':');
        split_ = colon != std::string::npos;
        const std::string a = split_ ? pattern.substr(0, colon) : pattern;
        const std::string b = split_ ? pattern.substr(colon + 1) : pattern;
        have_ = true;
        return regcomp(&sys_, a.c_str(), REG_ICASE | REG_NOSUB) == 0 &&
               regcomp(&ev_, b.c_str(), REG_ICASE | REG_NOSUB) == 0;
    }
    ~EventMatch() {
        if (have_) {
            regfree(&sys_);
            regfree(&ev_);
        }
    }
    bool matches(const std::string& sys, const std::string& ev) const {
        if (!have_) return true;
        const bool s = regexec(&sys_, sys.c_str(), 0, nullptr, 0) == 0;
        const bool e = regexec(&ev_, ev.c_str(), 0, nullptr, 0) == 0;
        return split_ ? s && e : s || e;
    }

  private:
    regex_t sys_{}, ev_{};
    bool have_ = false, split_ = false;
};

std::string strip_nl(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
}

int list_events(CliContext& ctx, const std::string& root, const std::string& pattern, bool fields, bool full,
                bool filters) {
    EventMatch m;
    if (!m.compile(pattern)) {
        ctx.error("list: bad regex '" + pattern + "'");
        return kExitUsage;
    }
    auto avail = tracefs::read_text_file(root + "/available_events");
    if (!avail) return fail(ctx, "list", avail.error());
    std::string out;
    size_t pos = 0;
    while (pos < avail->size()) {
        size_t nl = avail->find('\n', pos);
        if (nl == std::string::npos) nl = avail->size();
        const std::string line = avail->substr(pos, nl - pos);
        pos = nl + 1;
        const size_t colon = line.find(':');
        if (colon == std::string::npos) continue;
        const std::string sys = line.substr(0, colon), ev = line.substr(colon + 1);
        if (!m.matches(sys, ev)) continue;
        if (!fields && !filters) {
            out += line + "\n";
            continue;
        }
        if (filters) {
            auto f = tracefs::read_text_file(root + "/events/" + sys + "/" + ev + "/filter");
            out += line + "\n" + (f ? *f : "") + "\n";
            continue;
        }
        auto f = tracefs::read_event_format(root, sys, ev);
        if (!f) continue;
        std::string text = *f;
        if (!full)
            if (const size_t p = text.find("\nprint fmt:"); p != std::string::npos) text.resize(p + 1);
        out += "system: " + sys + "\n" + text;
        if (!out.empty() && out.back() != '\n') out += '\n';
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    return kExitOk;
}

int list_lines(CliContext& ctx, const std::string& path, const std::string& pattern) {
    auto t = tracefs::read_text_file(path);
    if (!t) return fail(ctx, "list", t.error());
    if (pattern.empty()) {
        std::fwrite(t->data(), 1, t->size(), stdout);
        return kExitOk;
    }
    regex_t re;
    if (regcomp(&re, pattern.c_str(), REG_NOSUB) != 0) {
        ctx.error("list: bad regex '" + pattern + "'");
        return kExitUsage;
    }
    size_t pos = 0;
    while (pos < t->size()) {
        size_t nl = t->find('\n', pos);
        if (nl == std::string::npos) nl = t->size();
        const std::string line = t->substr(pos, nl - pos);
        pos = nl + 1;
        if (regexec(&re, line.c_str(), 0, nullptr, 0) == 0) std::printf("%s\n", line.c_str());
    }
    regfree(&re);
    return kExitOk;
}

}  // namespace

int run_show(CliContext& ctx, const std::vector<std::string>& args) {
    std::string instance, file = "trace", cpu;
    bool pipe = false, snapshot = false, full_path = false;
    static const std::vector<std::pair<std::string, std::string>> settings = {
        {"tracing_on", "tracing_on"},           {"current_tracer", "current_tracer"},
        {"buffer_size", "buffer_size_kb"},      {"buffer_total_size", "buffer_total_size_kb"},
        {"ftrace_filter", "set_ftrace_filter"}, {"ftrace_notrace", "set_ftrace_notrace"},
        {"ftrace_pid", "set_ftrace_pid"},       {"graph_function", "set_graph_function"},
        {"graph_notrace", "set_graph_notrace"}, {"cpumask", "tracing_cpumask"}};
    std::vector<std::string> longs;
    for (const auto& s : settings) longs.push_back(s.first);
    const int rc = walk_options(
        ctx, "show", args, "B:c:spf", longs,
        "usage: ringscope show [-B NAME] [-s | -p] [-c CPU] [-f] [--tracing_on | --current_tracer |\n"
        "       --buffer_size | --buffer_total_size | --ftrace_filter | --ftrace_notrace |\n"
        "       --ftrace_pid | --graph_function | --graph_notrace | --cpumask]\n\n"
        "Prints a tracefs file: trace (default), snapshot (-s), trace_pipe (-p, consuming, until\n"
        "Ctrl-C), one CPU's (-c), or a setting; -f prints the file's path first.\n",
        [&](const OptionEvent& e) {
            if (e.name == "B")
                instance = e.value;
            else if (e.name == "c")
                cpu = e.value;
            else if (e.name == "s")
                snapshot = true;
            else if (e.name == "p")
                pipe = true;
            else if (e.name == "f")
                full_path = true;
            for (const auto& s : settings)
                if (e.name == s.first) file = s.second;
            return -1;
        });
    if (rc >= 0) return rc;
    if (pipe && snapshot) {
        ctx.error("show: Can not have -s and -p together");
        return kExitUsage;
    }
    if (snapshot) file = "snapshot";
    if (pipe) file = "trace_pipe";
    recover_tracing_state(ctx);
    auto root = tracefs::find_tracefs(true);
    if (!root) return fail(ctx, "show", root.error());
    auto in = instance.empty() ? tracefs::Instance::top(*root) : tracefs::Instance::open(instance, *root);
    if (!in) return fail(ctx, "show", in.error());
    const std::string path = cpu.empty() ? in->path(file) : in->path("per_cpu/cpu" + cpu + "/" + file);
    if (full_path) std::printf("%s\n", path.c_str());
    return copy_to_stdout(ctx, path, pipe);
}

int run_list(CliContext& ctx, const std::vector<std::string>& args) {
    std::string what, pattern;
    bool fields = false, full = false, filters = false;
    const int rc = walk_options(
        ctx, "list", args, "e::f::FlstpoBCc", {"full"},
        "usage: ringscope list [-e [REGEX] [-F [--full]] [-l]] [-s] [-t] [-o] [-f [REGEX]] [-B] "
        "[-C] "
        "[-c]\n\n"
        "What this machine offers, as trace-cmd list: events (-e; REGEX on the system or event\n"
        "name, SYS:EV on both; -F their formats, --full with the print fmt; -l their filters),\n"
        "systems (-s), tracers (-t), trace options (-o), functions (-f), instances (-B), clocks\n"
        "(-C), trace file compressions (-c).\n",
        [&](const OptionEvent& e) {
            if (e.name == "F")
                fields = true;
            else if (e.name == "full")
                full = true;
            else if (e.name == "l")
                filters = true;
            else
                what = e.name == "p" ? "t" : e.name;
            if (e.has_value) pattern = e.value;
            return -1;
        });
    if (rc >= 0) return rc;
    if (what == "c") {
        std::printf("Supported compression algorithms:\n\tnone\n\tzlib\n\tzstd\n");
        return kExitOk;
    }
    recover_tracing_state(ctx);
    auto root = tracefs::find_tracefs(true);
    if (!root) return fail(ctx, "list", root.error());
    if (what.empty() || what == "e") return list_events(ctx, *root, pattern, fields, full, filters);
    if (what == "s") {
        for (const auto& n : capture::entries_in_order(*root + "/events", true))
            std::printf("%s\n", n.c_str());
        std::printf("\n");  // trace-cmd's list -s ends with an empty line
        return kExitOk;
    }
    if (what == "t") {
        auto t = tracefs::read_text_file(*root + "/available_tracers");
        if (!t) return fail(ctx, "list", t.error());
        std::printf("%s\n", strip_nl(*t).c_str());
        return kExitOk;
    }
    if (what == "o") {
        for (const auto& line : capture::option_states(*root + "/options")) std::printf("%s\n", line.c_str());
        return kExitOk;
    }
    if (what == "f") return list_lines(ctx, *root + "/available_filter_functions", pattern);
    if (what == "C") return list_lines(ctx, *root + "/trace_clock", "");
    auto names = capture::instance_names(*root);
    if (!names || names->empty()) {
        std::printf("No buffer instances defined\n");
        return kExitOk;
    }
    for (const auto& n : *names) std::printf("%s\n", n.c_str());
    return kExitOk;
}

}  // namespace ringscope::cli
