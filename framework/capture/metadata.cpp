#include "framework/capture/metadata.hpp"

#include <sys/utsname.h>

#include <random>

#include <ringscope/version.hpp>

namespace ringscope::capture {

namespace {

Status add_system(io::TraceMetadata& meta, const std::string& root, const std::string& system,
                  const std::vector<std::string>& events) {
    io::EventSystemFormats sys;
    sys.system = system;
    for (const auto& e : events) {
        auto f = tracefs::read_event_format(root, system, e);
        if (!f) return std::move(f).error();
        sys.formats.push_back(std::move(*f));
    }
    if (system == "ftrace")
        meta.ftrace_formats = std::move(sys.formats);
    else if (!sys.formats.empty())
        meta.event_systems.push_back(std::move(sys));
    return {};
}

}  // namespace

Expected<io::TraceMetadata> collect_metadata(const tracefs::Instance& instance, const EventSelection* events,
                                             uint32_t cpu_count) {
    const std::string& root = instance.root();
    io::TraceMetadata meta;
    auto hp = tracefs::read_header_page(root);
    if (!hp) return std::move(hp).error();
    meta.header_page = std::move(*hp);
    auto he = tracefs::read_header_event(root);
    if (!he) return std::move(he).error();
    meta.header_event = std::move(*he);

    // The ftrace system's formats always go in (trace_marker's print, function...).
    auto ftrace = tracefs::system_events(root, "ftrace");
    if (!ftrace) return std::move(ftrace).error();
    if (Status st = add_system(meta, root, "ftrace", *ftrace); !st) return std::move(st).error();

    if (events) {
        std::string cur;
        std::vector<std::string> names;
        auto flush = [&]() -> Status {
            if (cur.empty() || cur == "ftrace") return {};
            return add_system(meta, root, cur, names);
        };
        for (const auto& [s, e] : events->events) {
            if (s != cur) {
                if (Status st = flush(); !st) return std::move(st).error();
                cur = s;
                names.clear();
            }
            names.push_back(e);
        }
        if (Status st = flush(); !st) return std::move(st).error();
    } else {
        auto systems = tracefs::event_systems(root);
        if (!systems) return std::move(systems).error();
        for (const auto& s : *systems) {
            if (s == "ftrace") continue;
            auto evs = tracefs::system_events(root, s);
            if (!evs) return std::move(evs).error();
            if (Status st = add_system(meta, root, s, *evs); !st) return std::move(st).error();
        }
    }

    // Without kallsyms (kptr_restrict, no /proc) the file is still valid: addresses print raw.
    if (auto k = tracefs::read_kallsyms()) meta.kallsyms = std::move(*k);
    if (auto p = tracefs::read_printk_formats(root)) meta.printk_formats = std::move(*p);

    if (auto clock = instance.read("trace_clock")) meta.options.trace_clock = std::move(*clock);
    struct utsname u {};
    if (::uname(&u) == 0)
        meta.options.uname = std::string(u.sysname) + " " + u.nodename + " " + u.release + " " + u.machine;
    meta.options.version = std::string("ringscope ") + RINGSCOPE_SDK_VERSION;
    std::random_device rd;
    meta.options.trace_id = (uint64_t{rd()} << 32) | rd();
    meta.cpu_count = cpu_count;
    meta.options.cpu_count = cpu_count;
    return meta;
}

Status finish_metadata(io::TraceMetadata& meta, const tracefs::Instance& instance,
                       const std::vector<int>& cpus, const std::vector<tracefs::CpuStats>& stats) {
    if (auto c = tracefs::read_saved_cmdlines(instance.root())) meta.saved_cmdlines = std::move(*c);
    meta.options.cpustats.clear();
    for (size_t i = 0; i < cpus.size() && i < stats.size(); ++i)
        meta.options.cpustats.push_back("CPU: " + std::to_string(cpus[i]) + "\n" + stats[i].text);
    return {};
}

}  // namespace ringscope::capture
