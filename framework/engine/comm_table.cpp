#include "framework/engine/comm_table.hpp"

#include <algorithm>

#include "framework/format/text_maps.hpp"

namespace ringscope::engine {

void CommTable::load_saved_cmdlines(std::string_view text) {
    // Same rules as libtraceevent's tep_parse_saved_cmdlines (first comm of a pid wins, stop at the
    // first line that does not parse); what parsed before a bad line is kept.
    format::CmdlineMap map;
    (void)format::parse_saved_cmdlines(text, map);
    for (auto& [pid, comm] : map) add(pid, comm);
}

void CommTable::map(int pid, int32_t index) const {
    if (pid >= 0 && pid < kDenseLimit) {
        if (static_cast<size_t>(pid) >= dense_.size()) dense_.resize(static_cast<size_t>(pid) + 1, -1);
        dense_[static_cast<size_t>(pid)] = index;
    } else {
        sparse_[pid] = index;
    }
}

void CommTable::insert(int pid, std::string_view comm) {
    const auto index = static_cast<int32_t>(names_.size());
    views_.emplace_back(names_.emplace_back(comm));
    pids_.push_back(pid);
    if (frozen_) map(pid, index);
}

void CommTable::freeze() const noexcept {
    frozen_ = true;
    // The list is walked from its head: the latest registration first. qsort by pid (glibc's merge
    // sort keeps that order among equal pids), then each pid gets what bsearch finds.
    std::vector<int32_t> order(names_.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int32_t>(order.size() - 1 - i);
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
        return pids_[static_cast<size_t>(a)] < pids_[static_cast<size_t>(b)];
    });
    for (size_t k = 0; k < order.size(); ++k) {
        const int pid = pids_[static_cast<size_t>(order[k])];
        if (k > 0 && pids_[static_cast<size_t>(order[k - 1])] == pid) continue;  // one search per pid
        size_t l = 0, u = order.size(), hit = k;
        while (l < u) {
            const size_t idx = (l + u) / 2;
            const int p = pids_[static_cast<size_t>(order[idx])];
            if (pid < p) {
                u = idx;
            } else if (pid > p) {
                l = idx + 1;
            } else {
                hit = idx;
                break;
            }
        }
        map(pid, order[hit]);
    }
}

void CommTable::add(int pid, std::string_view comm) {
    if (pid == 0 && frozen_) return;  // add_new_comm ignores pid 0
    if (!frozen_ || index_of(pid) < 0) insert(pid, comm);
}

void CommTable::set(int pid, std::string_view comm) {
    if (!frozen_) freeze();
    const int32_t i = index_of(pid);
    if (i < 0) {
        insert(pid, comm);
        return;
    }
    names_[static_cast<size_t>(i)].assign(comm.data(), comm.size());
    views_[static_cast<size_t>(i)] = names_[static_cast<size_t>(i)];
}

}  // namespace ringscope::engine
