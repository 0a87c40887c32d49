#include "framework/capture/tracing_session.hpp"

#include <unistd.h>

#include <cerrno>

namespace ringscope::capture {

Expected<std::unique_ptr<TracingSession>> TracingSession::start(const TraceSetup& setup) {
    std::string root = setup.root;
    if (root.empty()) {
        auto r = tracefs::find_tracefs();
        if (!r) return std::move(r).error();
        root = *r;
    }
    std::unique_ptr<TracingSession> s;
    if (setup.instance.empty()) {
        auto top = tracefs::Instance::top(root);
        if (!top) return std::move(top).error();
        s.reset(new TracingSession(std::move(*top)));
    } else {
        auto inst = tracefs::Instance::create(setup.instance, root);
        if (!inst) return std::move(inst).error();
        s.reset(new TracingSession(std::move(*inst)));
        s->created_ = true;
    }
    if (Status st = s->configure(setup); !st) {
        (void)s->restore();
        return std::move(st).error();
    }
    return s;
}

Status TracingSession::configure(const TraceSetup& setup) {
    const tracefs::Instance& in = instance_;
    auto cpus = in.cpus();
    if (!cpus) return std::move(cpus).error();
    cpus_ = std::move(*cpus);
    auto sel = select_events(in, setup.events);
    if (!sel) return std::move(sel).error();
    events_ = std::move(*sel);

    if (!created_) {
        // Save before touching anything: restore() puts back only what was saved.
        auto on = in.tracing_on();
        if (!on) return std::move(on).error();
        saved_on_ = *on;
        auto evs = in.enabled_events();
        if (!evs) return std::move(evs).error();
        saved_events_ = std::move(*evs);
        if (setup.buffer_kb) {
            auto kb = in.buffer_size_kb();
            if (!kb) return std::move(kb).error();
            saved_size_kb_ = *kb;
        }
        if (!setup.clock.empty()) {
            auto c = in.clock();
            if (!c) return std::move(c).error();
            saved_clock_ = std::move(*c);
        }
    }
    if (Status st = in.set_tracing_on(false); !st) return st;
    // Only the selected events: others left enabled on the top buffer would be recorded too.
    if (Status st = in.write("set_event", ""); !st) return st;
    if (setup.buffer_kb)
        if (Status st = in.set_buffer_size_kb(setup.buffer_kb); !st) return st;
    if (!setup.clock.empty())
        if (Status st = in.set_clock(setup.clock); !st) return st;
    for (const auto& [s, e] : events_.events)
        if (Status st = in.enable_events(s, e); !st) return st;
    return in.clear();
}

Status TracingSession::restore() {
    if (restored_) return {};
    restored_ = true;
    Status first;
    auto keep = [&](Status st) {
        if (!st && first) first = std::move(st);
    };
    keep(instance_.set_tracing_on(false));
    if (created_) {
        // rmdir fails with EBUSY for a moment after the last reader closed: retry briefly.
        Status st;
        for (int i = 0; i < 50; ++i) {
            st = instance_.destroy();
            if (st) break;
            ::usleep(20000);
        }
        keep(std::move(st));
        return first;
    }
    keep(instance_.write("set_event", ""));
    if (saved_events_)
        for (const auto& e : *saved_events_) keep(instance_.append("set_event", e + "\n"));
    if (saved_clock_) keep(instance_.set_clock(*saved_clock_));
    if (saved_size_kb_) keep(instance_.set_buffer_size_kb(*saved_size_kb_));
    if (saved_on_) keep(instance_.set_tracing_on(*saved_on_));
    return first;
}

TracingSession::~TracingSession() {
    (void)restore();
}

}  // namespace ringscope::capture
