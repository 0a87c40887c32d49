// Printing of `report --profile` (trace-cmd's output_handle): the global pseudo-tasks, the --by-comm
// groups, then the tasks by pid, each with its event lines and their stacks.
#include <algorithm>
#include <cinttypes>
#include <iterator>
#include <stdexcept>

#include <ringscope/resolver.hpp>

#include "profile_file.hpp"

namespace ringscope::sched::profile {
namespace {

// trace-cmd's softirq names, for a format without a __print_symbolic table for vec.
constexpr const char* kSoftirqNames[] = {"HI",           "TIMER",   "NET_TX", "NET_RX",  "BLOCK",
                                         "BLOCK_IOPOLL", "TASKLET", "SCHED",  "HRTIMER", "RCU"};

int64_t as_int64(uint64_t v) {
    return static_cast<int64_t>(v);
}

void append_time(uint64_t ts, TextBuffer& out) {
    // The microseconds round up to 1000000 at the end of a second, as trace-cmd prints them.
    out.appendf("%" PRId64 ".%06" PRId64, as_int64(ts / 1000000000),
                as_int64((ts % 1000000000 + 500) / 1000));
}

}  // namespace

void FileProfile::append_label(const Role& r, uint64_t val, TextBuffer& out) const {
    if (r.kind == Kind::function) {
        if (auto sym = ctx_->resolvers().lookup(kKernelDomain, val))
            out.appendf("func: %.*s()", static_cast<int>(sym->name.size()), sym->name.data());
        else
            out.appendf("func: 0x%" PRIx64, val);
        return;
    }
    out.append(r.type->name);
    out.push_back(':');
    switch (r.kind) {
        case Kind::sched_switch:
            if (options_.legacy_states && options_.legacy_states->set) {
                // trace-cmd's own letters (TASK_STATE_TO_CHAR_STR of Linux 4.x): K for I, W for R+.
                static constexpr char kStates[] = "RSDTtXZxKWP";
                if (!val) out.push_back('R');
                for (size_t i = 0; val && i + 1 < sizeof kStates - 1; ++i, val >>= 1)
                    if (val & 1) out.push_back(kStates[i + 1]);
                return;
            }
            states_->append(val, out);
            return;
        case Kind::softirq: {
            const ValueTable* names = r.type->table_for("vec", false);
            if (names) {
                for (const auto& [value, name] : names->entries) {
                    if (value != val) continue;
                    out.append(name);
                    return;
                }
            }
            if (static_cast<int>(val) >= 0 &&
                static_cast<int>(val) < static_cast<int>(std::size(kSoftirqNames)))
                out.append(kSoftirqNames[static_cast<int>(val)]);
            else
                out.appendf("%d", static_cast<int>(val));
            return;
        }
        case Kind::syscall:
            out.appendf("%d", static_cast<int>(val));
            return;
        default:
            out.appendf("0x%" PRIx64, val);
    }
}

void FileProfile::print_task(const Task& t, TextBuffer& out) const {
    out.append("\ntask: ");
    out.append(t.comm ? std::string_view(*t.comm) : ctx_->comm(t.pid));
    out.appendf("-%d\n", t.pid);
    print_figures(t.figures, out);
}

// --by-comm: the tasks whose name the sched events gave, merged by that name as trace-cmd merges
// them (wakeups under one value, switches by state, the rest as they are). trace-cmd lists the
// groups in the order of their addresses in memory (its compare_groups compares pointers); here by
// name.
void FileProfile::print_groups(TextBuffer& out) const {
    std::map<std::string, std::map<FigureKey, Figures>> groups;
    for (const auto& [pid, t] : tasks_) {
        if (!t.comm || pid < 0) continue;
        auto& g = groups[*t.comm];
        for (const auto& [key, f] : t.figures) {
            FigureKey k = key;
            const Kind kind = roles_[static_cast<size_t>(std::get<0>(key))].kind;
            if (kind == Kind::sched_wakeup) k = {std::get<0>(key), 0, 0};
            if (kind == Kind::sched_switch) k = {std::get<0>(key), std::get<2>(key), std::get<2>(key)};
            Figures& m = g[k];
            if (m.count == 0) {
                m = f;
                continue;
            }
            m.count += f.count;
            m.total += f.total;
            if (f.max > m.max) m.max = f.max, m.ts_max = f.ts_max;
            if (f.min < m.min) m.min = f.min, m.ts_min = f.ts_min;
            m.stacks.merge(f.stacks);
        }
    }
    for (const auto& [comm, figures] : groups) {
        out.append("\ngroup: ");
        out.append(comm);
        out.push_back('\n');
        print_figures(figures, out);
    }
}

void FileProfile::print_figures(const std::map<FigureKey, Figures>& figures, TextBuffer& out) const {
    // sched_switch first (by state), then sched_wakeup, then by event id and longest total.
    std::vector<std::pair<FigureKey, const Figures*>> rows;
    for (const auto& [key, f] : figures) rows.emplace_back(key, &f);
    auto rank = [&](const std::pair<FigureKey, const Figures*>& row) {
        const Role& r = roles_[static_cast<size_t>(std::get<0>(row.first))];
        const int group = r.kind == Kind::sched_switch ? 0 : r.kind == Kind::sched_wakeup ? 1 : 2;
        const uint64_t state = group == 0 ? std::get<2>(row.first) : 0;
        const uint32_t id = group == 2 ? r.type->id : 0;
        return std::make_tuple(group, state, id, ~row.second->total, std::get<1>(row.first),
                               std::get<2>(row.first));
    };
    std::sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) { return rank(a) < rank(b); });
    for (const auto& [key, f] : rows) {
        out.append("  Event: ");
        append_label(roles_[static_cast<size_t>(std::get<0>(key))], std::get<2>(key), out);
        out.appendf(" (%" PRId64 ")", as_int64(f->count));
        if (f->total) {
            out.appendf(" Total: %" PRId64 " Avg: %" PRId64 " Max: %" PRId64 "(ts:", as_int64(f->total),
                        as_int64(f->total / f->count), as_int64(f->max));
            append_time(f->ts_max, out);
            out.appendf(") Min:%" PRId64 "(ts:", as_int64(f->min));
            append_time(f->ts_min, out);
            out.push_back(')');
        }
        out.push_back('\n');
        if (!f->stacks.empty()) f->stacks.print(*ctx_, out);
    }
}

void FileProfile::print(TextBuffer& out) {
    if (failure_) throw std::runtime_error(*failure_);
    // The global pseudo-tasks first, each under its name alone and only when it has figures.
    std::vector<const Task*> global;
    for (const auto& [pid, t] : tasks_)
        if (pid < 0 && !t.figures.empty()) global.push_back(&t);
    std::sort(global.begin(), global.end(), [](const Task* a, const Task* b) { return a->pid > b->pid; });
    for (const Task* t : global) {
        out.append(*t->comm);
        out.push_back('\n');
        print_figures(t->figures, out);
    }
    const bool by_comm = options_.by_comm && options_.by_comm->set;
    if (by_comm) print_groups(out);
    std::vector<const Task*> sorted;
    for (const auto& [pid, t] : tasks_)
        if (pid >= 0 && (!by_comm || !t.comm)) sorted.push_back(&t);
    std::sort(sorted.begin(), sorted.end(), [](const Task* a, const Task* b) { return a->pid < b->pid; });
    for (const Task* t : sorted) print_task(*t, out);
}

}  // namespace ringscope::sched::profile
