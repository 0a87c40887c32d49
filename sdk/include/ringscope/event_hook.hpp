// trace-cmd's event hooks (report -H, used by --profile): two events connected into a start/end
// pair, timed like the built-in pairs (irq entry/exit, sys_enter/sys_exit):
//   [start_system:]start_event,start_match[,pid]/[end_system:]end_event,end_match[,flags]
// start_match names the start's field compared with the end's end_match field; pid, a start field
// naming the task instead of the current one. Flags (any case): P pinned (the pair does not change
// CPU), G global (per CPU, or one "Global Events" task with migration, not per task), S stacks
// (accepted, not used).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ringscope {

struct EventHook {
    std::optional<std::string> start_system, pid, end_system, flags;
    std::string start_event, start_match, end_event, end_match;
    bool migrate = true, global = false;
};

// The hook as trace-cmd 3.1.6 splits it (strtok on ":,/"); nullopt for a malformed one.
// `warnings` gets one line per unknown flag.
std::optional<EventHook> parse_event_hook(std::string_view text, std::string* warnings = nullptr);

// The line trace-cmd 3.1.6 prints for each -H it reads, with "(null)" for the parts not given:
// "start SYS:EVENT:MATCH (PID) end SYS:EVENT:MATCH (FLAGS)".
std::string event_hook_line(const EventHook& hook);

}  // namespace ringscope
