#include "framework/view/view_marks.hpp"

#include <algorithm>

namespace ringscope::view {

ViewMarks::ViewMarks(std::vector<std::unique_ptr<TimelineAnnotator>> annotators)
    : annotators_(std::move(annotators)) {
    strings_.emplace_back();  // id 0: ""
    string_ids_.emplace("", 0);
    for (const auto& a : annotators_) {
        kinds_.emplace_back(a->name());
        subscriptions_.push_back(a->subscriptions());
    }
}

const std::vector<uint16_t>& ViewMarks::subscribers(const EventType& type) {
    auto it = by_type_.find(&type);
    if (it != by_type_.end()) return it->second;
    std::vector<uint16_t> who;
    for (size_t a = 0; a < subscriptions_.size(); ++a)
        for (const EventMatch& m : subscriptions_[a])
            if (m.matches(type.system, type.name)) {
                who.push_back(static_cast<uint16_t>(a));
                break;
            }
    return by_type_.emplace(&type, std::move(who)).first->second;
}

void ViewMarks::feed(size_t lane, size_t file, const Event& ev) {
    const auto& who = subscribers(ev.type());
    if (who.empty()) return;
    lane_ = lane;
    file_ = file;
    for (uint16_t a : who) {
        kind_ = a;
        annotators_[a]->on_event(ev, *this);
    }
}

void ViewMarks::vcpu(const Event& ev, int64_t vcpu) {
    // As `kvm exits` decides a thread's vCPU: the latest, the larger on a tie.
    VcpuSeen& seen = threads_[{file_, ev.pid()}];
    if (seen.vcpu >= 0 && (ev.timestamp() < seen.ts || (ev.timestamp() == seen.ts && vcpu <= seen.vcpu)))
        return;
    seen = {vcpu, ev.timestamp()};
}

uint32_t ViewMarks::intern(std::string_view s) {
    auto it = string_ids_.find(std::string(s));
    if (it != string_ids_.end()) return it->second;
    strings_.emplace_back(s);
    const auto id = static_cast<uint32_t>(strings_.size() - 1);
    string_ids_.emplace(strings_.back(), id);
    return id;
}

void ViewMarks::mark(const Event& ev, std::string_view label, std::string_view detail) {
    Mark m{ev.timestamp(), static_cast<uint32_t>(lane_), ev.pid(), intern(label), intern(detail), kind_};
    ++totals_[{m.kind, m.label}];
    if (marks_.size() >= kMaxMarks) {
        ++dropped_;
        return;
    }
    marks_.push_back(m);
}

void ViewMarks::finish(const engine::TraceSet& set) {
    for (const auto& [key, seen] : threads_) {
        // Plain copies, not a structured binding: clang 14 (the fuzz build) cannot capture one.
        const size_t file = key.first;
        const int pid = key.second;
        std::optional<size_t> guest;
        for (const io::GuestInfo& g : set.file(file).reader().options().guests) {
            const bool runs = std::any_of(g.vcpus.begin(), g.vcpus.end(),
                                          [&](const auto& v) { return static_cast<int>(v.host_pid) == pid; });
            if (!runs) continue;
            for (size_t f = 0; f < set.size() && !guest; ++f) {
                const auto& id = set.file(f).reader().options().trace_id;
                if (f != file && id && *id == g.trace_id) guest = f;
            }
        }
        if (!guest && file == 0 && set.size() == 2) guest = 1;
        if (guest) guest_vcpus_[*guest][seen.vcpu] = pid;
    }
}

ViewMarks::Answer ViewMarks::query(uint64_t from, uint64_t to, uint32_t width) const {
    Answer out;
    const auto lo = std::lower_bound(marks_.begin(), marks_.end(), from,
                                     [](const Mark& m, uint64_t t) { return m.ts < t; });
    const double px = static_cast<double>(to - from + 1) / std::max<uint32_t>(1, width);
    auto add = [&](std::vector<MarkSpan>& list, const Mark& m, uint64_t pixel) {
        if (!list.empty() && static_cast<uint64_t>((list.back().mark.ts - from) / px) == pixel)
            ++list.back().n;
        else
            list.push_back({m, 1});
    };
    for (auto it = lo; it != marks_.end() && it->ts <= to; ++it) {
        const auto pixel = static_cast<uint64_t>((it->ts - from) / px);
        add(out.lanes[it->lane], *it, pixel);
        add(out.tasks[it->pid], *it, pixel);
        ++out.counts[{it->kind, it->label}];
    }
    return out;
}

}  // namespace ringscope::view
