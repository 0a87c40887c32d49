// Which events a capture enables, from trace-cmd style -e arguments: "sys:event", "sys" (the whole
// system), "event" (that event in whatever system has it), "all"; each part may be a glob.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <ringscope/error.hpp>
#include <ringscope/tracefs.hpp>

namespace ringscope::capture {

struct EventSelection {
    // {system, event} pairs that exist, sorted, without duplicates.
    std::vector<std::pair<std::string, std::string>> events;
    std::vector<std::string> systems() const;  // sorted, distinct
};

// Errc::not_found naming the argument that matches nothing.
Expected<EventSelection> select_events(const tracefs::Instance& instance,
                                       const std::vector<std::string>& specs);

}  // namespace ringscope::capture
