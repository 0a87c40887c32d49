#include "framework/capture/tracefs_admin.hpp"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "framework/tracefs/file_io.hpp"

namespace ringscope::capture {

namespace {

std::vector<std::string> dirs_in_order(const std::string& dir) {
    return entries_in_order(dir, true);
}

std::string trim(std::string s) {
    size_t b = 0;
    while (b < s.size() && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    size_t e = s.size();
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
    return s.substr(b, e - b);
}

bool read(const tracefs::Instance& in, const std::string& file, std::string& out) {
    auto t = tracefs::read_text_file(in.path(file));
    if (!t) return false;
    out = std::move(*t);
    return true;
}

void report_file(std::string& o, const tracefs::Instance& in, const char* file, const char* def,
                 const char* what) {
    std::string s;
    if (!read(in, file, s)) return;
    s = trim(s);
    if (!s.empty() && s != def) o += std::string("\n") + what + s + "\n";
}

void report_events(std::string& o, const tracefs::Instance& in) {
    std::string all;
    if (!read(in, "events/enable", all)) return;
    all = trim(all);
    o += "\nEvents:\n";
    if (all[0] == '1' || all[0] == '0') {
        o += all[0] == '1' ? " All enabled\n" : " All disabled\n";
        return;
    }
    const std::string events = in.path("events");
    const auto systems = dirs_in_order(events);
    bool any = false, header = false;
    for (const auto& s : systems) {
        std::string en;
        if (read(in, "events/" + s + "/enable", en) && en[0] == '1') {
            if (!header) o += " Individual systems:\n";
            header = any = true;
            o += "   " + s + "\n";
        }
    }
    header = false;
    for (const auto& s : systems) {
        std::string en;
        if (!read(in, "events/" + s + "/enable", en) || en[0] == '1' || en[0] == '0') continue;
        bool sys_printed = false;
        for (const auto& e : dirs_in_order(events + "/" + s)) {
            std::string ee;
            if (!read(in, "events/" + s + "/" + e + "/enable", ee) || ee[0] != '1') continue;
            if (!header) o += " Individual events:\n";
            if (!sys_printed) o += "    " + s + "\n";
            header = sys_printed = any = true;
            o += "        " + e + "\n";
        }
    }
    if (!any) o += "  (none enabled)\n";
}

// Filters ("none" = unset) and triggers (a '#' comment = unset) of every event.
void report_event_files(std::string& o, const tracefs::Instance& in, const char* file, const char* title) {
    const std::string events = in.path("events");
    bool first = true;
    for (const auto& s : dirs_in_order(events))
        for (const auto& e : dirs_in_order(events + "/" + s)) {
            std::string v;
            if (!read(in, "events/" + s + "/" + e + "/" + file, v)) continue;
            v = trim(v);
            if (v == "none" || v.empty() || v[0] == '#') continue;
            if (first) o += std::string("\n") + title + ":\n";
            first = false;
            o += "  " + s + ":" + e + " \"" + v + "\"\n";
        }
}

void list_functions(std::string& o, const tracefs::Instance& in, const char* file, const char* title) {
    std::string s;
    if (!read(in, file, s)) return;
    bool first = true;
    size_t pos = 0;
    while (pos < s.size()) {
        size_t nl = s.find('\n', pos);
        const bool last = nl == std::string::npos;
        if (last) nl = s.size();
        const std::string line = s.substr(pos, nl - pos);
        pos = nl + 1;
        if (line.empty() || line[0] == '#') continue;
        if (first) o += std::string("\n") + title + ":\n";
        first = false;
        o += "   " + line + (last ? "" : "\n");
    }
}

void report_buffers(std::string& o, const tracefs::Instance& in) {
    std::string s;
    if (!read(in, "buffer_size_kb", s)) return;
    s = trim(s);
    if (s.find("expanded") != std::string::npos) return;  // not expanded yet: not shown
    if (s != "X") {
        o += "\nBuffer size in kilobytes (per cpu):\n   " + s + "\n";
    } else {
        for (int cpu = 0;; ++cpu) {
            std::string c;
            if (!read(in, "per_cpu/cpu" + std::to_string(cpu) + "/buffer_size_kb", c)) break;
            if (!cpu) o += "\n";
            o += "CPU " + std::to_string(cpu) + " buffer size (kb): " + trim(c) + "\n";
        }
    }
    std::string total;
    if (!read(in, "buffer_total_size_kb", total)) return;
    o += "\nBuffer total size in kilobytes:\n   " + trim(total) + "\n";
}

// Shown only when a CPU of the machine is left out (trace-cmd's walk from the lowest hex digit).
void report_cpumask(std::string& o, const tracefs::Instance& in) {
    std::string s;
    if (!read(in, "tracing_cpumask", s)) return;
    s = trim(s);
    long cpus = ::sysconf(_SC_NPROCESSORS_CONF);
    for (long i = static_cast<long>(s.size()) - 1; i >= 0 && cpus > 0; --i) {
        const char c = s[static_cast<size_t>(i)];
        if (c == ',') continue;
        if (c == 'f') {
            cpus -= 4;
            continue;
        }
        if (cpus >= 4) break;
        int n = c >= '0' && c <= '9' ? c - '0' : 10 + (c - 'a');
        while (cpus > 0 && (n & 1)) {
            n >>= 1;
            --cpus;
        }
        break;
    }
    if (cpus > 0) o += "\nCPU mask: " + s + "\n";
}

void report_probes(std::string& o, const tracefs::Instance& in, const char* file, const char* title) {
    std::string s;
    if (!read(in, file, s)) return;
    s = trim(s);
    if (s.empty()) return;
    o += std::string("\n") + title + ":\n";
    bool nl = true;
    for (char c : s) {
        if (nl) o += "   ";
        o += c;
        nl = c == '\n';
    }
    o += "\n";
}

}  // namespace

std::string stat_text(const tracefs::Instance& in, bool options) {
    std::string o;
    report_file(o, in, "current_tracer", "nop", "Tracer: ");
    report_events(o, in);
    report_event_files(o, in, "filter", "Filters");
    report_event_files(o, in, "trigger", "Triggers");
    list_functions(o, in, "set_ftrace_filter", "Function Filter");
    list_functions(o, in, "set_ftrace_notrace", "Function No Trace");
    list_functions(o, in, "set_graph_function", "Function Graph Filter");
    list_functions(o, in, "set_graph_notrace", "Function Graph No Trace");
    report_buffers(o, in);
    if (auto c = in.clock(); c && *c != "local") o += "\nClock: " + *c + "\n";
    report_cpumask(o, in);
    report_file(o, in, "tracing_max_latency", "0", "Max Latency: ");
    report_probes(o, in, "kprobe_events", "Kprobe events");
    report_probes(o, in, "uprobe_events", "Uprobe events");
    report_probes(o, in, "synthetic_events", "Synthetic events");
    report_file(o, in, "set_event_pid", "", "Filtered event PIDs:\n");
    report_file(o, in, "set_event_notrace_pid", "", "Filtered notrace event PIDs:\n");
    report_file(o, in, "set_ftrace_pid", "no pid", "Filtered function tracer PIDs:\n");
    report_file(o, in, "set_ftrace_notrace_pid", "no pid", "Filtered function tracer notrace PIDs:\n");
    if (options) {
        o += "\nOptions:\n";
        for (const auto& line : option_states(in.path("options"))) o += "   " + line + "\n";
    }
    std::string on;
    if (read(in, "tracing_on", on))
        o += trim(on) == "0" ? "\nTracing is disabled\n\n" : "\nTracing is enabled\n\n";
    report_file(o, in, "error_log", "", "Error log:\n");
    if (in.is_top()) {
        bool first = true;
        for (const auto& n : dirs_in_order(in.path("instances"))) {
            if (first) o += "\nInstances:\n";
            first = false;
            o += " " + n + "\n";
        }
    }
    return o;
}

// Readdir order: trace-cmd walks the directories so; sorting would change its output.
std::vector<std::string> entries_in_order(const std::string& dir, bool dirs_only) {
    std::vector<std::string> out;
    DIR* d = ::opendir(dir.c_str());
    if (!d) return out;
    while (dirent* e = ::readdir(d)) {
        if (e->d_name[0] == '.') continue;
        struct stat st {};
        if (!dirs_only || (::stat((dir + "/" + e->d_name).c_str(), &st) == 0 && S_ISDIR(st.st_mode)))
            out.emplace_back(e->d_name);
    }
    ::closedir(d);
    return out;
}

std::vector<std::string> option_states(const std::string& options_dir) {
    std::vector<std::string> out;
    for (const auto& n : entries_in_order(options_dir, false)) {
        auto v = tracefs::read_text_file(options_dir + "/" + n);
        out.push_back((v && !v->empty() && (*v)[0] == '0' ? "no" : "") + n);
    }
    return out;
}

std::string all_cpus_mask(const std::vector<int>& cpus) {
    const int n = cpus.empty() ? 1 : cpus.back() + 1;
    std::string hex;
    for (int bit = 0; bit < n; bit += 4) hex.insert(hex.begin(), "0137f"[std::min(4, n - bit)]);
    return hex;
}

Expected<std::vector<std::string>> instance_names(const std::string& root) {
    if (::access((root + "/instances").c_str(), F_OK) != 0)
        return Error(Errc::not_found, "no instances directory").in_file(root);
    return dirs_in_order(root + "/instances");
}

Status reset_buffer(const tracefs::Instance& in, const ResetSpec& spec) {
    Status first;
    auto keep = [&](Status st) {
        if (!st && first) first = std::move(st);
    };
    auto exists = [&](const std::string& f) { return ::access(in.path(f).c_str(), F_OK) == 0; };
    keep(in.set_tracing_on(false));
    keep(in.write("current_tracer", "nop"));
    keep(in.write("set_event", ""));
    if (exists("events/enable")) keep(in.write("events/enable", "0"));
    const std::string events = in.path("events");
    for (const auto& s : dirs_in_order(events))
        for (const auto& e : dirs_in_order(events + "/" + s)) {
            const std::string base = "events/" + s + "/" + e + "/";
            std::string v;
            if (read(in, base + "filter", v) && trim(v) != "none") keep(in.write(base + "filter", "0"));
            // Each trigger is removed by writing it back with a '!' in front.
            if (!read(in, base + "trigger", v)) continue;
            size_t pos = 0;
            while (pos < v.size()) {
                size_t nl = v.find('\n', pos);
                if (nl == std::string::npos) nl = v.size();
                std::string t = trim(v.substr(pos, nl - pos));
                pos = nl + 1;
                if (t.empty() || t[0] == '#') continue;
                if (const size_t sp = t.find(" if "); sp != std::string::npos) t = t.substr(0, sp);
                keep(in.append(base + "trigger", "!" + t));
            }
        }
    for (const char* f : {"set_event_pid", "set_event_notrace_pid"})
        if (exists(f)) keep(in.write(f, ""));
    // Function filters: where the function tracer is locked the kernel refuses even to open them.
    for (const char* f : {"set_ftrace_pid", "set_ftrace_notrace_pid", "set_ftrace_filter",
                          "set_ftrace_notrace", "set_graph_function", "set_graph_notrace"})
        if (exists(f) && ::access(in.path(f).c_str(), W_OK) == 0)
            if (auto cur = tracefs::read_text_file(in.path(f))) (void)in.write(f, "");
    if (exists("max_graph_depth")) keep(in.write("max_graph_depth", "0"));
    for (const char* o : {"stacktrace", "event-fork", "function-fork", "userstacktrace", "func_stack_trace"})
        if (exists(std::string("options/") + o)) keep(in.write(std::string("options/") + o, "0"));
    if (auto cpus = in.cpus()) keep(in.write("tracing_cpumask", all_cpus_mask(*cpus)));
    keep(in.set_clock("local"));
    keep(in.clear());
    if (spec.buffer_kb) keep(in.set_buffer_size_kb(spec.buffer_kb));
    keep(in.set_tracing_on(true));
    return first;
}

}  // namespace ringscope::capture
