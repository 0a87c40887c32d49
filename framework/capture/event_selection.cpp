#include "framework/capture/event_selection.hpp"

#include <unistd.h>

#include <algorithm>

namespace ringscope::capture {

std::vector<std::string> EventSelection::systems() const {
    std::vector<std::string> out;
    for (const auto& e : events)
        if (out.empty() || out.back() != e.first) out.push_back(e.first);
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

Expected<EventSelection> select_events(const tracefs::Instance& instance,
                                       const std::vector<std::string>& specs) {
    EventSelection sel;
    for (const std::string& spec : specs) {
        if (spec.empty()) return Error(Errc::invalid_argument, "empty event name");
        std::string sys, ev;
        if (spec == "all") {
            sys = "*";
        } else if (const size_t colon = spec.find(':'); colon != std::string::npos) {
            sys = spec.substr(0, colon);
            ev = spec.substr(colon + 1);
        } else if (spec.find_first_of("*?[") == std::string::npos &&
                   ::access(instance.path("events/" + spec + "/enable").c_str(), F_OK) == 0) {
            sys = spec;  // a system name
        } else {
            // A system glob or an event name: try both, as trace-cmd does.
            auto m = instance.match_events(spec, "");
            if (!m) return std::move(m).error();
            if (m->empty()) {
                sys = "*";
                ev = spec;
            } else {
                sys = spec;
            }
        }
        auto m = instance.match_events(sys, ev);
        if (!m) return std::move(m).error();
        // "ftrace" events (print, function...) cannot be enabled one by one except a few; keep
        // what has an enable file.
        m->erase(std::remove_if(
                     m->begin(), m->end(),
                     [&](const auto& p) {
                         return ::access(
                                    instance.path("events/" + p.first + "/" + p.second + "/enable").c_str(),
                                    F_OK) != 0;
                     }),
                 m->end());
        if (m->empty())
            return Error(Errc::not_found, "no event matches '" + spec + "'").in_file(instance.path("events"));
        sel.events.insert(sel.events.end(), m->begin(), m->end());
    }
    std::sort(sel.events.begin(), sel.events.end());
    sel.events.erase(std::unique(sel.events.begin(), sel.events.end()), sel.events.end());
    return sel;
}

}  // namespace ringscope::capture
