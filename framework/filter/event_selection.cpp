// The selection options every event-reading command shares (ringscope/selection.hpp): their
// parsing, the trace-seconds notation, and --first-event/--last-event.
#include <ringscope/selection.hpp>

#include <cctype>
#include <map>
#include <string_view>

#include <ringscope/trace.hpp>

namespace ringscope {
namespace {

// trace-cmd's parse_cpulist: digits and ranges "a-b", separated by ',' or ':'.
bool parse_cpus(std::string_view s, std::vector<int>& out, std::string& error) {
    size_t i = 0;
    auto number = [&](unsigned long& v) {
        if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i]))) return false;
        v = 0;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
            v = v * 10 + static_cast<unsigned long>(s[i++] - '0');
            if (v > 4096) return false;  // beyond any CPU id (NR_CPUS): keeps the ranges bounded
        }
        return true;
    };
    do {
        unsigned long a = 0, b = 0;
        if (!number(a)) break;
        b = a;
        if (i < s.size() && s[i] == '-') {
            ++i;
            if (!number(b)) break;
        }
        if (a > b) {
            error = "--cpu: range '" + std::string(s) + "' goes from greater to lower";
            return false;
        }
        for (; a <= b; ++a) out.push_back(static_cast<int>(a));
        if (i == s.size()) return true;
        if (s[i] != ',' && s[i] != ':') break;
        ++i;
    } while (i < s.size());
    error = "--cpu takes CPU numbers 0-4096 and ranges (\"0,2\", \"1-3\"), not '" + std::string(s) + "'";
    return false;
}

bool parse_pid(std::string_view s, int& pid) {
    if (s.empty() || s.size() > 9) return false;
    pid = 0;
    for (char c : s) {
        if (!std::isdigit(static_cast<unsigned char>(c))) return false;
        pid = pid * 10 + (c - '0');
    }
    return true;
}

}  // namespace

bool parse_trace_seconds(std::string_view text, uint64_t& ns) {
    size_t dot = text.find('.');
    std::string_view whole = text.substr(0, dot);
    std::string_view frac = dot == std::string_view::npos ? std::string_view() : text.substr(dot + 1);
    if (whole.empty() && frac.empty()) return false;
    if (whole.size() > 10 || frac.size() > 9) return false;  // 10 digits of seconds: 317 years
    uint64_t s = 0, f = 0;
    for (char c : whole) {
        if (!std::isdigit(static_cast<unsigned char>(c))) return false;
        s = s * 10 + static_cast<uint64_t>(c - '0');
    }
    for (size_t k = 0; k < 9; ++k) {
        const char c = k < frac.size() ? frac[k] : '0';
        if (!std::isdigit(static_cast<unsigned char>(c))) return false;
        f = f * 10 + static_cast<uint64_t>(c - '0');
    }
    ns = s * 1'000'000'000ull + f;
    return true;
}

std::string format_trace_seconds(uint64_t ns) {
    const uint64_t us = (ns + 500) / 1000;
    char buf[48];
    std::snprintf(buf, sizeof buf, "%llu.%06llu", static_cast<unsigned long long>(us / 1'000'000),
                  static_cast<unsigned long long>(us % 1'000'000));
    return buf;
}

const char* selection_usage() noexcept {
    return "selection (the same for every command that reads events):\n"
           "  -F FILTER        libtraceevent filter, as trace-cmd report -F (repeatable; after -v: exclude)\n"
           "  --cpu LIST       only these CPUs (\"0,2\", \"1-3\")\n"
           "  --pid PID        events of or about this task (common_pid, pid, next_pid; repeatable)\n"
           "  --comm NAME      the same for every pid recorded with this name (repeatable)\n"
           "  -e, --event EV   only these events ([SYSTEM/]NAME, regex; repeatable)\n"
           "  --from S, --to S only events in this time range (the trace's seconds, as report prints them)\n"
           "  --first-event, --last-event   list each CPU's first / last event time instead\n";
}

SelectionParse parse_selection_option(const std::vector<std::string>& args, size_t& i, EventSelection& sel,
                                      std::string& error) {
    const std::string& a = args[i];
    // The option's name and its value ("--cpu=1", "--cpu 1", "-F..." or "-F ...").
    static const std::map<std::string, bool, std::less<>> kLong = {
        {"--cpu", true},  {"--pid", true}, {"--comm", true},         {"--event", true},
        {"--from", true}, {"--to", true},  {"--first-event", false}, {"--last-event", false},
    };
    std::string name, value;
    bool has_value = false;
    if (a.size() >= 2 && a[0] == '-' && a[1] != '-') {
        if (a[1] != 'F' && a[1] != 'e' && !(a == "-v")) return SelectionParse::not_mine;
        name = a.substr(0, 2);
        if (name == "-v") {
            sel.negate_next = true;
            return SelectionParse::ok;
        }
        if (a.size() > 2) value = a.substr(2), has_value = true;
    } else {
        const size_t eq = a.find('=');
        name = a.substr(0, eq);
        auto it = kLong.find(name);
        if (it == kLong.end()) return SelectionParse::not_mine;
        if (!it->second) {
            if (eq != std::string::npos) {
                error = name + " takes no value";
                return SelectionParse::error;
            }
            (name == "--first-event" ? sel.list_first : sel.list_last) = true;
            return SelectionParse::ok;
        }
        if (eq != std::string::npos) value = a.substr(eq + 1), has_value = true;
    }
    if (!has_value) {
        if (i + 1 >= args.size()) {
            error = "option '" + name + "' needs a value";
            return SelectionParse::error;
        }
        value = args[++i];
    }
    if (name == "-F") {
        sel.filters.emplace_back(value, sel.negate_next);
    } else if (name == "-e" || name == "--event") {
        sel.events.push_back(value);
    } else if (name == "--cpu") {
        if (!parse_cpus(value, sel.cpus, error)) return SelectionParse::error;
    } else if (name == "--pid") {
        int pid = 0;
        if (!parse_pid(value, pid)) {
            error = "--pid takes a process id, not '" + value + "'";
            return SelectionParse::error;
        }
        sel.pids.push_back(pid);
    } else if (name == "--comm") {
        if (value.empty()) {
            error = "--comm takes a task name";
            return SelectionParse::error;
        }
        sel.comms.push_back(value);
    } else {
        uint64_t& ns = name == "--from" ? sel.from_ns : sel.to_ns;
        if (!parse_trace_seconds(value, ns)) {
            error = name + " takes a time in the trace's seconds (e.g. 1383892.867930), not '" + value + "'";
            return SelectionParse::error;
        }
        if (sel.from_ns > sel.to_ns) {
            error = "--from " + format_trace_seconds(sel.from_ns) + " is after --to " +
                    format_trace_seconds(sel.to_ns);
            return SelectionParse::error;
        }
    }
    return SelectionParse::ok;
}

int print_cpu_event_times(std::span<Trace* const> traces, const EventSelection& sel, std::FILE* out,
                          std::FILE* err) {
    for (Trace* t : traces) {
        struct Span {
            uint64_t first = 0, last = 0;
        };
        std::map<int, Span> cpus;
        t->iterate([&](Trace&, const Event& ev, int) {
            auto [it, fresh] = cpus.try_emplace(ev.cpu(), Span{ev.timestamp(), ev.timestamp()});
            if (!fresh) it->second.last = ev.timestamp();
            return 0;
        });
        if (!t->status()) {
            std::fprintf(err, "%s\n", t->status().error().to_string().c_str());
            return 1;
        }
        std::fprintf(out, "List of CPUs in %s with data:\n", t->path().c_str());
        for (const auto& [cpu, span] : cpus) {
            // As report prints them: the seconds right-aligned in 5 columns.
            auto padded = [](uint64_t ns) {
                const std::string t = format_trace_seconds(ns);
                const size_t dot = t.find('.');
                return std::string(dot < 5 ? 5 - dot : 0, ' ') + t;
            };
            std::string line = "  " + std::to_string(cpu);
            if (sel.list_first) line += "\tFirst event:" + padded(span.first);
            if (sel.list_last) line += "\tLast event:" + padded(span.last);
            std::fprintf(out, "%s\n", line.c_str());
        }
    }
    return 0;
}

}  // namespace ringscope
