// The tracefs layer: mount discovery, instances, events, sizes and the metadata files.
#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <ringscope/tracefs.hpp>

#include "framework/tracefs/file_io.hpp"

namespace ringscope::tracefs {

namespace {

constexpr long kTracefsMagic = 0x74726163;  // TRACEFS_MAGIC
constexpr long kDebugfsMagic = 0x64626720;  // DEBUGFS_MAGIC (debugfs/tracing auto-mounts tracefs)

// 0: a usable tracefs; else the errno why not (ENOENT: not a tracefs there; EACCES: one we may
// not use).
int probe_tracefs_dir(const std::string& dir) {
    struct statfs st {};
    if (statfs(dir.c_str(), &st) != 0) return errno == EACCES ? EACCES : ENOENT;
    if (st.f_type != kTracefsMagic && st.f_type != kDebugfsMagic) return ENOENT;
    if (::access((dir + "/events").c_str(), F_OK) == 0) return 0;
    return errno == EACCES ? EACCES : ENOENT;
}

Error io_error(const std::string& path, const char* what, int err) {
    return Error(Errc::io, std::string(what) + ": " + std::strerror(err)).in_file(path);
}

bool has_glob(std::string_view s) {
    return s.find_first_of("*?[") != std::string_view::npos;
}

Expected<std::vector<std::string>> list_dirs(const std::string& dir) {
    std::vector<std::string> out;
    DIR* d = opendir(dir.c_str());
    if (!d) return io_error(dir, "cannot list", errno);
    while (dirent* e = readdir(d)) {
        if (e->d_name[0] == '.') continue;
        if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN) continue;
        out.emplace_back(e->d_name);
    }
    closedir(d);
    std::sort(out.begin(), out.end());
    return out;
}

std::string strip(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
}

Expected<uint64_t> parse_u64(const std::string& path, const std::string& text) {
    const std::string t = strip(text);
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(t.c_str(), &end, 10);
    if (t.empty() || errno || (end && *end && *end != ' ' && *end != '('))
        return Error(Errc::parse, "not a number: '" + t + "'").in_file(path);
    return static_cast<uint64_t>(v);
}

}  // namespace

Expected<std::string> find_tracefs(bool mount_if_missing) {
    if (const char* env = std::getenv("RINGSCOPE_TRACEFS"); env && *env) {
        std::string dir(env);
        struct stat st {};
        if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) ||
            ::access((dir + "/events").c_str(), F_OK) != 0)
            return Error(Errc::not_found, "tracefs not found (RINGSCOPE_TRACEFS is not a tracefs directory)")
                .in_file(dir);
        return dir;
    }
    for (const char* dir : {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"}) {
        const int r = probe_tracefs_dir(dir);
        if (r == 0) return std::string(dir);
        if (r == EACCES)
            return Error(Errc::io, std::string("tracefs is not accessible: ") + std::strerror(EACCES) +
                                       " (tracing needs root or CAP_SYS_ADMIN/CAP_PERFMON)")
                .in_file(dir);
    }
    if (mount_if_missing && ::mount("nodev", "/sys/kernel/tracing", "tracefs", 0, nullptr) == 0 &&
        probe_tracefs_dir("/sys/kernel/tracing") == 0)
        return std::string("/sys/kernel/tracing");
    return Error(Errc::not_found,
                 "tracefs not found: not mounted on /sys/kernel/tracing or /sys/kernel/debug/tracing, and "
                 "mounting it failed (try: mount -t tracefs nodev /sys/kernel/tracing as root)")
        .in_file("/sys/kernel/tracing");
}

Instance::Instance(std::string root, std::string name) : root_(std::move(root)), name_(std::move(name)) {
    dir_ = name_.empty() ? root_ : root_ + "/instances/" + name_;
}

static Expected<std::string> resolve_root(const std::string& root) {
    if (!root.empty()) return root;
    return find_tracefs();
}

Expected<Instance> Instance::top(const std::string& root) {
    auto r = resolve_root(root);
    if (!r) return std::move(r).error();
    return Instance(*r, "");
}

static Status check_instance_name(const std::string& name) {
    if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..")
        return Error(Errc::invalid_argument, "bad instance name '" + name + "'");
    return {};
}

Expected<Instance> Instance::create(const std::string& name, const std::string& root) {
    if (Status st = check_instance_name(name); !st) return std::move(st).error();
    auto r = resolve_root(root);
    if (!r) return std::move(r).error();
    Instance inst(*r, name);
    if (::mkdir(inst.dir_.c_str(), 0755) != 0) {
        const int err = errno;
        if (err == EEXIST)
            return Error(Errc::invalid_argument,
                         "instance '" + name +
                             "' already exists (another tracer may own it; remove it with "
                             "rmdir or choose another name)")
                .in_file(inst.dir_);
        return io_error(inst.dir_, "cannot create instance (is tracefs writable? root needed)", err);
    }
    return inst;
}

Expected<Instance> Instance::open(const std::string& name, const std::string& root) {
    if (Status st = check_instance_name(name); !st) return std::move(st).error();
    auto r = resolve_root(root);
    if (!r) return std::move(r).error();
    Instance inst(*r, name);
    struct stat st {};
    if (::stat(inst.dir_.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        return Error(Errc::not_found, "no such instance '" + name + "'").in_file(inst.dir_);
    return inst;
}

Status Instance::destroy() {
    if (is_top()) return Error(Errc::invalid_argument, "the top buffer cannot be removed").in_file(dir_);
    // The kernel refuses while a trace_pipe_raw is open (EBUSY): the caller closes readers first.
    if (::rmdir(dir_.c_str()) != 0 && errno != ENOENT) return io_error(dir_, "cannot remove instance", errno);
    return {};
}

std::string Instance::path(std::string_view file) const {
    std::string p = dir_;
    p += '/';
    p += file;
    return p;
}

Expected<std::string> Instance::read(std::string_view file) const {
    return read_text_file(path(file));
}

Status Instance::write(std::string_view file, std::string_view text) const {
    return write_text_file(path(file), text, false);
}

Status Instance::append(std::string_view file, std::string_view text) const {
    return write_text_file(path(file), text, true);
}

Expected<std::vector<std::pair<std::string, std::string>>> Instance::match_events(
    std::string_view system, std::string_view event) const {
    const std::string sys_pat(system.empty() ? "*" : system);
    const std::string ev_pat(event.empty() ? "*" : event);
    auto systems = list_dirs(path("events"));
    if (!systems) return std::move(systems).error();
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& s : *systems) {
        if (fnmatch(sys_pat.c_str(), s.c_str(), 0) != 0) continue;
        auto evs = list_dirs(path("events/" + s));
        if (!evs) continue;
        for (const auto& e : *evs)
            if (fnmatch(ev_pat.c_str(), e.c_str(), 0) == 0) out.emplace_back(s, e);
    }
    return out;
}

static Status set_events(const Instance& inst, std::string_view system, std::string_view event, bool on) {
    const char* v = on ? "1" : "0";
    const std::string what = std::string(system) + (event.empty() ? "" : ":" + std::string(event));
    // Plain names use the kernel's own system/event enable files (one write for a whole system).
    if (!has_glob(system) && !has_glob(event)) {
        const std::string rel = event.empty()
                                    ? "events/" + std::string(system) + "/enable"
                                    : "events/" + std::string(system) + "/" + std::string(event) + "/enable";
        if (::access(inst.path(rel).c_str(), F_OK) != 0)
            return Error(Errc::not_found, "no such event '" + what + "'").in_file(inst.path("events"));
        return inst.write(rel, v);
    }
    auto m = inst.match_events(system, event);
    if (!m) return std::move(m).error();
    if (m->empty())
        return Error(Errc::not_found, "no event matches '" + what + "'").in_file(inst.path("events"));
    for (const auto& [s, e] : *m)
        if (Status st = inst.write("events/" + s + "/" + e + "/enable", v); !st) return st;
    return {};
}

Status Instance::enable_events(std::string_view system, std::string_view event) const {
    return set_events(*this, system, event, true);
}

Status Instance::disable_events(std::string_view system, std::string_view event) const {
    return set_events(*this, system, event, false);
}

Expected<std::vector<std::string>> Instance::enabled_events() const {
    auto t = read("set_event");
    if (!t) return std::move(t).error();
    std::vector<std::string> out;
    size_t pos = 0;
    while (pos < t->size()) {
        size_t nl = t->find('\n', pos);
        if (nl == std::string::npos) nl = t->size();
        if (nl > pos) out.emplace_back(t->substr(pos, nl - pos));
        pos = nl + 1;
    }
    return out;
}

Expected<uint64_t> Instance::buffer_size_kb() const {
    auto t = read("buffer_size_kb");
    if (!t) return std::move(t).error();
    return parse_u64(path("buffer_size_kb"), *t);
}

Status Instance::set_buffer_size_kb(uint64_t kb) const {
    return write("buffer_size_kb", std::to_string(kb));
}

Expected<uint32_t> Instance::subbuf_size() const {
    if (::access(path("buffer_subbuf_size_kb").c_str(), F_OK) == 0) {
        auto t = read("buffer_subbuf_size_kb");
        if (!t) return std::move(t).error();
        auto kb = parse_u64(path("buffer_subbuf_size_kb"), *t);
        if (!kb) return std::move(kb).error();
        if (*kb == 0 || *kb > (1u << 20))
            return Error(Errc::corrupt, "unexpected sub-buffer size").in_file(path("buffer_subbuf_size_kb"));
        return static_cast<uint32_t>(*kb * 1024);
    }
    return static_cast<uint32_t>(::sysconf(_SC_PAGESIZE));
}

Status Instance::set_subbuf_size_kb(uint32_t kb) const {
    if (::access(path("buffer_subbuf_size_kb").c_str(), F_OK) != 0)
        return Error(Errc::unsupported, "this kernel has no sub-buffer size setting").in_file(dir_);
    return write("buffer_subbuf_size_kb", std::to_string(kb));
}

Expected<std::string> Instance::clock() const {
    auto t = read("trace_clock");
    if (!t) return std::move(t).error();
    const size_t open = t->find('['), close = t->find(']');
    if (open == std::string::npos || close == std::string::npos || close < open)
        return Error(Errc::parse, "no selected clock in '" + strip(*t) + "'").in_file(path("trace_clock"));
    return t->substr(open + 1, close - open - 1);
}

Status Instance::set_clock(std::string_view clock) const {
    return write("trace_clock", clock);
}

Expected<bool> Instance::tracing_on() const {
    auto t = read("tracing_on");
    if (!t) return std::move(t).error();
    return !t->empty() && (*t)[0] == '1';
}

Status Instance::set_tracing_on(bool on) const {
    return write("tracing_on", on ? "1" : "0");
}

Status Instance::clear() const {
    return write("trace", "");
}

Expected<std::vector<int>> Instance::cpus() const {
    auto dirs = list_dirs(path("per_cpu"));
    if (!dirs) return std::move(dirs).error();
    std::vector<int> out;
    for (const auto& d : *dirs) {
        if (d.size() < 4 || d.compare(0, 3, "cpu") != 0) continue;
        char* end = nullptr;
        const long n = std::strtol(d.c_str() + 3, &end, 10);
        if (end && *end == 0 && n >= 0) out.push_back(static_cast<int>(n));
    }
    std::sort(out.begin(), out.end());
    if (out.empty()) return Error(Errc::not_found, "no per_cpu directories").in_file(path("per_cpu"));
    return out;
}

Expected<CpuStats> Instance::cpu_stats(int cpu) const {
    const std::string p = path("per_cpu/cpu" + std::to_string(cpu) + "/stats");
    auto t = read_text_file(p);
    if (!t) return std::move(t).error();
    CpuStats s;
    s.text = std::move(*t);
    size_t pos = 0;
    while (pos < s.text.size()) {
        size_t nl = s.text.find('\n', pos);
        if (nl == std::string::npos) nl = s.text.size();
        const std::string_view line(s.text.data() + pos, nl - pos);
        pos = nl + 1;
        const size_t colon = line.find(':');
        if (colon == std::string_view::npos) continue;
        const std::string_view key = line.substr(0, colon);
        const std::string val(line.substr(colon + 1));
        const uint64_t v = std::strtoull(val.c_str(), nullptr, 10);
        if (key == "entries")
            s.entries = v;
        else if (key == "overrun")
            s.overrun = v;
        else if (key == "commit overrun")
            s.commit_overrun = v;
        else if (key == "bytes")
            s.bytes = v;
        else if (key == "dropped events")
            s.dropped_events = v;
        else if (key == "read events")
            s.read_events = v;
    }
    return s;
}

Expected<std::string> read_header_page(const std::string& root) {
    return read_text_file(root + "/events/header_page");
}

Expected<std::string> read_header_event(const std::string& root) {
    return read_text_file(root + "/events/header_event");
}

Expected<std::string> read_event_format(const std::string& root, std::string_view system,
                                        std::string_view event) {
    return read_text_file(root + "/events/" + std::string(system) + "/" + std::string(event) + "/format");
}

Expected<std::vector<std::string>> event_systems(const std::string& root) {
    return list_dirs(root + "/events");
}

Expected<std::vector<std::string>> system_events(const std::string& root, std::string_view system) {
    auto d = list_dirs(root + "/events/" + std::string(system));
    if (!d) return std::move(d).error();
    // Only directories with a format file are events (skips nothing today, but "enable" etc. are files).
    std::vector<std::string> out;
    for (auto& e : *d)
        if (::access((root + "/events/" + std::string(system) + "/" + e + "/format").c_str(), F_OK) == 0)
            out.push_back(std::move(e));
    return out;
}

Expected<std::string> read_printk_formats(const std::string& root) {
    return read_text_file(root + "/printk_formats");
}

Expected<std::string> read_saved_cmdlines(const std::string& root) {
    return read_text_file(root + "/saved_cmdlines");
}

Expected<std::string> read_kallsyms() {
    return read_text_file("/proc/kallsyms");
}

}  // namespace ringscope::tracefs
