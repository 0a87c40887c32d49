// pid -> task name, as libtraceevent keeps it for trace-cmd: seeded from the file's saved cmdlines,
// updated by plugins (the sched plugin registers the names sched events carry). Looked up once per
// printed event, so small pids index a flat table; names live in a deque and never move.
//
// libtraceevent's two stages are reproduced: until the first look-up of a pid other than 0,
// registrations go to a list that keeps duplicates (a plugin's name for a pid of the saved
// cmdlines included); the first look-up sorts that list by pid and each pid gets the entry glibc's
// bsearch lands on. From then on a registration never replaces a name (tep_register_comm).
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ringscope::engine {

class CommTable {
  public:
    // "PID COMM" lines, as libtraceevent reads them (first comm of a pid wins).
    void load_saved_cmdlines(std::string_view text);
    // tep_override_comm: replaces the name of a pid.
    void set(int pid, std::string_view comm);
    // tep_register_comm: the first name registered for a pid stays (what plugins call while
    // printing). Existing names never move, so views returned by get() stay valid.
    void add(int pid, std::string_view comm);
    // "<idle>" for pid 0 and "<...>" for unknown pids, as libtraceevent's tep_data_comm_from_pid.
    // (pid 0 is "<idle>" whatever is registered for it, as there.)
    std::string_view get(int pid) const noexcept {
        if (pid == 0) return "<idle>";
        if (!frozen_) freeze();
        const int32_t i = index_of(pid);
        return i >= 0 ? views_[static_cast<size_t>(i)] : std::string_view("<...>");
    }
    bool contains(int pid) const noexcept {
        if (!frozen_) freeze();
        return index_of(pid) >= 0;
    }
    size_t size() const noexcept { return names_.size(); }
    // f(pid, comm) for every registered pid, in no particular order.
    template <class F>
    void for_each(F&& f) const {
        if (!frozen_) freeze();
        for (size_t i = 0; i < names_.size(); ++i)
            if (index_of(pids_[i]) == static_cast<int32_t>(i)) f(pids_[i], std::string_view(names_[i]));
    }

  private:
    static constexpr int kDenseLimit = 1 << 20;  // pids below this index a vector (4 MiB at most)
    int32_t index_of(int pid) const noexcept {
        if (pid >= 0 && pid < kDenseLimit) {
            return static_cast<size_t>(pid) < dense_.size() ? dense_[static_cast<size_t>(pid)] : -1;
        }
        auto it = sparse_.find(pid);
        return it == sparse_.end() ? -1 : it->second;
    }
    void insert(int pid, std::string_view comm);
    void map(int pid, int32_t index) const;
    void freeze() const noexcept;  // the list stage ends: sort, pick, index

    std::deque<std::string> names_;  // every name ever added (list-stage duplicates too)
    // names_[i] as a view: one load less per look-up than indexing the deque (once per printed
    // event); renewed when set() rewrites a name.
    std::vector<std::string_view> views_;
    std::vector<int> pids_;               // pid of names_[i]
    mutable std::vector<int32_t> dense_;  // pid -> index into names_, -1 when unknown
    mutable std::unordered_map<int, int32_t> sparse_;
    mutable bool frozen_ = false;
};

}  // namespace ringscope::engine
