// pid -> task name, as trace-cmd keeps it: seeded from the file's saved cmdlines, updated by
// plugins (the sched plugin registers the names sched events carry).
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>

namespace ringscope::engine {

class CommTable {
public:
    // "PID COMM" lines, as libtraceevent reads them (first comm of a pid wins).
    void load_saved_cmdlines(std::string_view text);
    void set(int pid, std::string_view comm) { map_[pid].assign(comm.data(), comm.size()); }
    // "<idle>" for pid 0 and "<...>" for unknown pids, as libtraceevent's tep_data_comm_from_pid.
    // (pid 0 is "<idle>" whatever is registered for it, as there.)
    std::string_view get(int pid) const {
        if (pid == 0) return "<idle>";
        auto it = map_.find(pid);
        return it != map_.end() ? std::string_view(it->second) : std::string_view("<...>");
    }
    bool contains(int pid) const { return map_.count(pid) != 0; }
    size_t size() const noexcept { return map_.size(); }

private:
    std::unordered_map<int, std::string> map_;
};

}  // namespace ringscope::engine
