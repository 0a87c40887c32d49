// A snapshot of every tracefs file a capture may write (top buffer settings, options, every
// event's enable, filter and trigger, the instances), to compare before and after a command.
#pragma once

#include <dirent.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <string>

#include "framework/tracefs/file_io.hpp"

namespace rs_tracefs_test {

inline std::vector<std::string> subdirs(const std::string& dir) {
    std::vector<std::string> out;
    if (DIR* d = ::opendir(dir.c_str())) {
        while (dirent* e = ::readdir(d))
            if (e->d_name[0] != '.' && e->d_type == DT_DIR) out.emplace_back(e->d_name);
        ::closedir(d);
    }
    std::sort(out.begin(), out.end());
    return out;
}

using Snapshot = std::map<std::string, std::string>;

inline Snapshot tracefs_snapshot(const std::string& root) {
    Snapshot s;
    auto add = [&](const std::string& rel) {
        auto t = ringscope::tracefs::read_text_file(root + "/" + rel);
        std::string v = t ? *t : "<unreadable>";
        // The first use expands the boot-time buffer for good: "7 (expanded: 1408)" is 1408 then.
        if (const size_t ex = v.find("(expanded: "); ex != std::string::npos)
            v = v.substr(ex + 11, v.find(')', ex) - ex - 11);
        // The size as pages of 4080 data bytes: the boot size, 1408 KB, is 354 pages, which the
        // kernel reads back as 1410 once written: the same buffer.
        if (rel == "buffer_size_kb" && !v.empty() && std::isdigit(static_cast<unsigned char>(v[0])))
            v = "pages:" + std::to_string((std::stoull(v) * 1024 + 4079) / 4080);
        // Compared without the newline the kernel adds (a fake tracefs folder keeps what was written);
        // a filter cleared with "0" reads "none" on a kernel.
        while (!v.empty() && (v.back() == '\n' || v.back() == ' ')) v.pop_back();
        if (v == "0" && rel.size() > 7 && rel.compare(rel.size() - 7, 7, "/filter") == 0) v = "none";
        s[rel] = v;
    };
    for (const char* f : {"tracing_on", "set_event", "buffer_size_kb", "trace_clock", "current_tracer",
                          "tracing_cpumask", "set_event_pid", "set_event_notrace_pid", "set_ftrace_filter",
                          "set_ftrace_notrace", "set_graph_function", "set_ftrace_pid", "max_graph_depth",
                          "buffer_percent", "trace_options", "events/enable"})
        add(f);
    if (DIR* d = ::opendir((root + "/options").c_str())) {
        while (dirent* e = ::readdir(d))
            if (e->d_name[0] != '.') add(std::string("options/") + e->d_name);
        ::closedir(d);
    }
    for (const auto& sys : subdirs(root + "/events"))
        for (const auto& ev : subdirs(root + "/events/" + sys)) {
            add("events/" + sys + "/" + ev + "/enable");
            add("events/" + sys + "/" + ev + "/filter");
            add("events/" + sys + "/" + ev + "/trigger");
        }
    std::string inst;
    for (const auto& n : subdirs(root + "/instances")) inst += n + "\n";
    s["instances/"] = inst;
    return s;
}

// "" when equal, else the files that differ.
inline std::string snapshot_diff(const Snapshot& a, const Snapshot& b) {
    std::string out;
    for (const auto& [k, v] : a) {
        auto it = b.find(k);
        if (it == b.end())
            out += k + ": gone\n";
        else if (it->second != v)
            out += k + ": '" + v.substr(0, 200) + "' -> '" + it->second.substr(0, 200) + "'\n";
    }
    for (const auto& [k, v] : b)
        if (!a.count(k)) out += k + ": new\n";
    return out;
}

}  // namespace rs_tracefs_test
