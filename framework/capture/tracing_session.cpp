#include "framework/capture/tracing_session.hpp"

#include "framework/capture/tracefs_admin.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace ringscope::capture {

namespace {

bool exists(const std::string& path) {
    return ::access(path.c_str(), F_OK) == 0;
}

bool is_function_tracer(const std::string& t) {
    return t.rfind("function", 0) == 0;
}

}  // namespace

Expected<std::unique_ptr<TracingSession>> TracingSession::start(const TraceSetup& setup) {
    std::string root = setup.root;
    if (root.empty()) {
        auto r = tracefs::find_tracefs();
        if (!r) return std::move(r).error();
        root = *r;
    }
    auto journal = StateJournal::create();
    if (!journal) return std::move(journal).error();
    std::unique_ptr<TracingSession> s;
    if (setup.instance.empty()) {
        auto top = tracefs::Instance::top(root);
        if (!top) return std::move(top).error();
        s.reset(new TracingSession(std::move(*top)));
    } else {
        if (setup.instance.find('/') != std::string::npos || setup.instance == "." || setup.instance == "..")
            return Error(Errc::invalid_argument, "bad instance name '" + setup.instance + "'");
        const std::string dir = root + "/instances/" + setup.instance;
        // Refused before the journal is made (an unprivileged user cannot write it either).
        if (::access((root + "/instances").c_str(), W_OK) != 0)
            return Error(Errc::io,
                         std::string("cannot create instance (is tracefs writable? root needed): ") +
                             std::strerror(errno))
                .in_file(dir);
        // An instance that exists is used as trace-cmd record uses it: every change journaled and
        // put back, the instance itself never removed (make_instance journals only one it made).
        if (Status st = (*journal)->make_instance(dir); !st && st.error().code() != Errc::invalid_argument)
            return std::move(st).error();
        auto inst = tracefs::Instance::open(setup.instance, root);
        if (!inst) return std::move(inst).error();
        s.reset(new TracingSession(std::move(*inst)));
    }
    s->journal_ = std::move(*journal);
    if (Status st = s->configure(setup); !st) {
        (void)s->restore();
        return std::move(st).error();
    }
    return s;
}

Status TracingSession::set(std::string_view file, std::string_view value, RestoreKind kind) {
    return journal_->set(instance_.path(file), value, kind);
}

Status TracingSession::set_tracing(bool on) {
    return set("tracing_on", on ? "1" : "0");
}

Status TracingSession::configure(const TraceSetup& setup) {
    const tracefs::Instance& in = instance_;
    auto cpus = in.cpus();
    if (!cpus) return std::move(cpus).error();
    cpus_ = std::move(*cpus);
    std::vector<std::pair<std::string, std::string>> excluded;
    for (const EventSpec& e : setup.events) {
        auto sel = select_events(in, {e.spec});
        if (!sel) {
            if (setup.ignore_missing && sel.error().code() == Errc::not_found) continue;
            return std::move(sel).error();
        }
        auto& to = e.negated ? excluded : events_.events;
        to.insert(to.end(), sel->events.begin(), sel->events.end());
    }
    std::sort(events_.events.begin(), events_.events.end());
    events_.events.erase(std::unique(events_.events.begin(), events_.events.end()), events_.events.end());
    std::erase_if(events_.events, [&](const auto& p) {
        return std::find(excluded.begin(), excluded.end(), p) != excluded.end();
    });

    if (Status st = set_tracing(false); !st) return st;
    // Only the selected events: others left enabled on the top buffer would be recorded too.
    if (Status st = set("set_event", "", RestoreKind::lines); !st) return st;
    if (setup.buffer_kb)
        if (Status st = set("buffer_size_kb", std::to_string(setup.buffer_kb)); !st) return st;
    if (!setup.clock.empty())
        if (Status st = set("trace_clock", setup.clock); !st) return st;
    if (!setup.cpumask.empty())
        if (Status st = set("tracing_cpumask", setup.cpumask == "-1" ? all_cpus_mask(cpus_) : setup.cpumask);
            !st)
            return st;
    if (Status st = set_functions(setup); !st) return st;
    if (Status st = set_options(setup); !st) return st;
    if (Status st = set_pids(setup); !st) return st;
    // Each event's enable file is journaled too: put back even where set_event is not (a fake tracefs).
    for (const auto& [s, e] : events_.events)
        if (Status st = set("events/" + s + "/" + e + "/enable", "1"); !st) return st;
    if (Status st = set_filters(setup); !st) return st;
    if (Status st = set_triggers(setup); !st) return st;
    return in.clear();
}

// -O NAME / noNAME, -T, -d: the options/ files.
Status TracingSession::set_options(const TraceSetup& setup) {
    const tracefs::Instance& in = instance_;
    for (const std::string& o : setup.options) {
        // trace-cmd's -O: NAME sets the option, noNAME clears it.
        std::string name = o;
        const char* value = "1";
        if (!exists(in.path("options/" + name)) && name.rfind("no", 0) == 0) {
            name = name.substr(2);
            value = "0";
        }
        if (name.empty() || name.find('/') != std::string::npos || !exists(in.path("options/" + name)))
            return Error(Errc::not_found, "no trace option '" + o + "' (see ringscope list -o)")
                .in_file(in.path("options"));
        if (Status st = set("options/" + name, value); !st) return st;
    }
    return {};
}

// -P (set_event_pid, and set_ftrace_pid with a function tracer), -c (event-fork, function-fork).
Status TracingSession::set_pids(const TraceSetup& setup) {
    const tracefs::Instance& in = instance_;
    if (setup.pids.empty() && !setup.children) return {};
    if (!exists(in.path("set_event_pid")))
        return Error(Errc::unsupported, "this kernel cannot filter events by pid (no set_event_pid)")
            .in_file(in.dir());
    if (Status st = set("set_event_pid", "", RestoreKind::lines); !st) return st;
    for (int pid : setup.pids)
        if (Status st =
                journal_->append(in.path("set_event_pid"), std::to_string(pid) + "\n", RestoreKind::lines);
            !st)
            return st;
    if (setup.children) {
        if (Status st = set("options/event-fork", "1"); !st) return st;
        if (function_tracer_ && exists(in.path("options/function-fork")))
            if (Status st = set("options/function-fork", "1"); !st) return st;
    }
    if (function_tracer_ && !setup.pids.empty()) {
        if (Status st = set("set_ftrace_pid", "", RestoreKind::lines); !st) return st;
        for (int pid : setup.pids)
            if (Status st = journal_->append(in.path("set_ftrace_pid"), std::to_string(pid) + "\n",
                                             RestoreKind::lines);
                !st)
                return st;
    }
    return {};
}

// -l/-n/-g first, then -p (trace-cmd's order: the function tracer starts filtered), then the depth.
Status TracingSession::set_functions(const TraceSetup& setup) {
    const tracefs::Instance& in = instance_;
    const std::pair<const char*, const std::vector<std::string>*> lists[] = {
        {"set_ftrace_filter", &setup.ftrace_filter},
        {"set_ftrace_notrace", &setup.ftrace_notrace},
        {"set_graph_function", &setup.graph_functions}};
    for (const auto& [file, funcs] : lists)
        for (size_t i = 0; i < funcs->size(); ++i) {
            // The first one replaces what was there (trace-cmd resets the filter), the others add.
            const std::string& f = (*funcs)[i];
            Status st = i == 0 ? set(file, f + "\n", RestoreKind::lines)
                               : journal_->append(in.path(file), f + "\n", RestoreKind::lines);
            if (!st)
                return Error(st.error().code(),
                             "the kernel refused the function filter '" + f + "': " + st.error().message())
                    .in_file(st.error().file());
        }
    if (!setup.tracer.empty()) {
        auto avail = in.read("available_tracers");
        if (!avail) return std::move(avail).error();
        std::string list = *avail;
        while (!list.empty() && (list.back() == '\n' || list.back() == ' ')) list.pop_back();
        const std::string padded = " " + list + " ";
        if (padded.find(" " + setup.tracer + " ") == std::string::npos)
            return Error(Errc::not_found,
                         "tracer '" + setup.tracer + "' is not available (this kernel has: " + list + ")")
                .in_file(in.path("available_tracers"));
        if (Status st = set("current_tracer", setup.tracer); !st)
            return Error(Errc::io, "the kernel refused the " + setup.tracer + " tracer (" +
                                       st.error().message() +
                                       "): function tracing is locked or disabled on this machine "
                                       "(/proc/sys/kernel/ftrace_enabled, lockdown)")
                .in_file(in.path("current_tracer"));
        function_tracer_ = is_function_tracer(setup.tracer);
    }
    if (!setup.max_graph_depth.empty()) {
        if (!exists(in.path("max_graph_depth")))
            return Error(Errc::unsupported, "this kernel has no max_graph_depth (no function_graph tracer)")
                .in_file(in.dir());
        if (Status st = set("max_graph_depth", setup.max_graph_depth); !st) return st;
    }
    return {};
}

// -f: each event the -e matched gets the filter; an -e of several events (a system, a glob) keeps
// those whose fields the filter names, as the kernel's system filter does, but not none of them.
Status TracingSession::set_filters(const TraceSetup& setup) {
    for (const EventSpec& e : setup.events) {
        if (e.filter.empty() || e.negated) continue;
        auto sel = select_events(instance_, {e.spec});
        if (!sel) continue;  // -i skipped it
        Status first;
        int ok = 0;
        for (const auto& [s, ev] : sel->events) {
            Status st = set("events/" + s + "/" + ev + "/filter", e.filter, RestoreKind::filter);
            if (st)
                ++ok;
            else if (first)
                first = std::move(st);
        }
        if (!ok && !first)
            return Error(Errc::invalid_argument, "the kernel refused the filter '" + e.filter + "' of -e " +
                                                     e.spec + ": " + first.error().message())
                .in_file(first.error().file());
    }
    return {};
}

// -R: each trigger appended to the trigger file of every event its -e selected (negated ones too:
// trace-cmd's way to have the trigger without the event), journaled to be taken back with '!'.
Status TracingSession::set_triggers(const TraceSetup& setup) {
    for (const EventSpec& e : setup.events) {
        if (e.triggers.empty()) continue;
        auto sel = select_events(instance_, {e.spec});
        if (!sel) continue;  // -i skipped it
        for (const auto& [s, ev] : sel->events)
            for (const std::string& t : e.triggers)
                if (Status st =
                        journal_->add_trigger(instance_.path("events/" + s + "/" + ev + "/trigger"), t);
                    !st)
                    return Error(Errc::invalid_argument, "the kernel refused the trigger '" + t + "' of -e " +
                                                             e.spec + ": " + st.error().message())
                        .in_file(st.error().file());
    }
    return {};
}

Status TracingSession::trace_only_pid(int pid) {
    if (!exists(instance_.path("set_event_pid")))
        return Error(Errc::unsupported, "this kernel cannot filter events by pid (no set_event_pid)")
            .in_file(instance_.dir());
    if (Status st =
            journal_->append(instance_.path("set_event_pid"), std::to_string(pid) + "\n", RestoreKind::lines);
        !st)
        return st;
    if (function_tracer_)
        return journal_->append(instance_.path("set_ftrace_pid"), std::to_string(pid) + "\n",
                                RestoreKind::lines);
    return {};
}

Status TracingSession::exclude_pids(const std::vector<int>& pids) {
    if (!exists(instance_.path("set_event_notrace_pid"))) return {};  // older kernels: traced too
    for (int pid : pids)
        if (Status st = journal_->append(instance_.path("set_event_notrace_pid"), std::to_string(pid) + "\n",
                                         RestoreKind::lines);
            !st)
            return st;
    return {};
}

Expected<tracefs::Instance> TracingSession::make_scratch_instance(const std::string& name) {
    if (Status st = journal_->make_instance(instance_.root() + "/instances/" + name); !st)
        return std::move(st).error();
    return tracefs::Instance::open(name, instance_.root());
}

Status TracingSession::restore() {
    return journal_ ? journal_->restore() : Status{};
}

Status TracingSession::keep() {
    return journal_ ? journal_->keep() : Status{};
}

TracingSession::~TracingSession() {
    (void)restore();
}

}  // namespace ringscope::capture
