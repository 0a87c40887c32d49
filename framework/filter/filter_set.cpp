// FilterSet: trace-cmd report's combination of -F filters (tracecmd_filter_match).
#include <algorithm>
#include <limits>

#include <ringscope/filter.hpp>

namespace ringscope {

struct FilterSet::Impl {
    std::vector<EventFilter> positive;
    std::vector<EventFilter> negative;
    bool stack_ids_known = false;
    int64_t kernel_stack_id = -1;
    int64_t user_stack_id = -1;
    std::vector<uint8_t> last_shown;   // per CPU: the last decided event was shown
    bool keep_showing_stacks = false;  // trace-cmd 3.1.6: a shown stack trace keeps last_shown

    // add_pids: sorted; the pid and next_pid handles per type id, looked up on a type's first event.
    std::vector<int> pids;
    struct PidFields {
        bool known = false;
        FieldHandle pid, next_pid;
    };
    std::vector<PidFields> pid_fields;
    // The selection's limits, ANDed with the filters.
    std::vector<EventFilter> event_limits;
    std::vector<uint8_t> cpu_allowed;  // by CPU; empty: every CPU
    uint64_t from_ns = 0, to_ns = std::numeric_limits<uint64_t>::max();
    bool limited = false;  // any limit above is set

    bool pid_match(const Event& ev) noexcept {
        if (pids.empty()) return false;
        auto in = [&](int64_t p) { return std::binary_search(pids.begin(), pids.end(), p); };
        if (in(ev.pid())) return true;
        const uint32_t id = ev.id();
        PidFields local;
        PidFields* pf = &local;
        if (id < (1u << 16)) {
            if (id >= pid_fields.size()) pid_fields.resize(id + 1);
            pf = &pid_fields[id];
        }
        if (!pf->known) {
            pf->pid = ev.type().handle("pid");
            pf->next_pid = ev.type().handle("next_pid");
            pf->known = true;
        }
        return (pf->pid && in(ev.integer(pf->pid))) || (pf->next_pid && in(ev.integer(pf->next_pid)));
    }

    bool within_limits(const Event& ev) const noexcept {
        const uint64_t ts = ev.timestamp();
        if (ts < from_ns || ts > to_ns) return false;
        if (!cpu_allowed.empty()) {
            const int cpu = ev.cpu();
            if (cpu < 0 || static_cast<size_t>(cpu) >= cpu_allowed.size() ||
                !cpu_allowed[static_cast<size_t>(cpu)])
                return false;
        }
        if (event_limits.empty()) return true;
        for (const auto& f : event_limits)
            if (f.covers(ev.id())) return true;
        return false;
    }

    // ftrace's kernel_stack or user_stack: by the ids add() learnt, else (--pid alone) by name
    bool is_stack(const Event& ev) const noexcept {
        const int64_t id = ev.id();
        if (stack_ids_known) return id == kernel_stack_id || id == user_stack_id;
        const EventType& t = ev.type();
        return t.system == "ftrace" && (t.name == "kernel_stack" || t.name == "user_stack");
    }

    bool stack_follows(const Event& ev) const noexcept {
        if (!is_stack(ev)) return false;
        const int cpu = ev.cpu();
        return cpu >= 0 && static_cast<size_t>(cpu) < last_shown.size() &&
               last_shown[static_cast<size_t>(cpu)];
    }
};

FilterSet::FilterSet() : impl_(std::make_unique<Impl>()) {}
FilterSet::~FilterSet() = default;
FilterSet::FilterSet(FilterSet&&) noexcept = default;
FilterSet& FilterSet::operator=(FilterSet&&) noexcept = default;

Status FilterSet::add(std::string_view text, bool negate, std::span<const EventType* const> types) {
    auto f = EventFilter::parse(text, types);
    if (!f) return std::move(f).error();
    if (!impl_) impl_ = std::make_unique<Impl>();  // moved-from
    if (!impl_->stack_ids_known) {
        impl_->stack_ids_known = true;
        for (const EventType* t : types) {
            if (!t || t->system != "ftrace") continue;
            if (t->name == "kernel_stack") impl_->kernel_stack_id = t->id;
            if (t->name == "user_stack") impl_->user_stack_id = t->id;
        }
    }
    (negate ? impl_->negative : impl_->positive).push_back(std::move(*f));
    return Status::success();
}

void FilterSet::add_pids(std::span<const int> pids) {
    if (!impl_) impl_ = std::make_unique<Impl>();
    Impl& im = *impl_;
    im.pids.insert(im.pids.end(), pids.begin(), pids.end());
    std::sort(im.pids.begin(), im.pids.end());
    im.pids.erase(std::unique(im.pids.begin(), im.pids.end()), im.pids.end());
}

Status FilterSet::limit_events(std::string_view text, std::span<const EventType* const> types) {
    auto f = EventFilter::parse(text, types);
    if (!f) return std::move(f).error();
    if (!impl_) impl_ = std::make_unique<Impl>();
    impl_->event_limits.push_back(std::move(*f));
    impl_->limited = true;
    return Status::success();
}

void FilterSet::limit_cpus(std::span<const int> cpus) {
    if (!impl_) impl_ = std::make_unique<Impl>();
    for (int c : cpus) {
        if (c < 0) continue;
        const size_t i = static_cast<size_t>(c);
        if (i >= impl_->cpu_allowed.size()) impl_->cpu_allowed.resize(i + 1, 0);
        impl_->cpu_allowed[i] = 1;
    }
    impl_->limited = impl_->limited || !impl_->cpu_allowed.empty();
}

void FilterSet::limit_time(uint64_t from_ns, uint64_t to_ns) noexcept {
    if (!impl_) return;  // moved-from
    impl_->from_ns = from_ns;
    impl_->to_ns = to_ns;
    impl_->limited = impl_->limited || from_ns != 0 || to_ns != std::numeric_limits<uint64_t>::max();
}

void FilterSet::keep_showing_stacks(bool on) noexcept {
    if (!impl_) impl_ = std::make_unique<Impl>();
    impl_->keep_showing_stacks = on;
}

bool FilterSet::empty() const noexcept {
    return !impl_ ||
           (impl_->positive.empty() && impl_->negative.empty() && impl_->pids.empty() && !impl_->limited);
}
size_t FilterSet::positive_count() const noexcept {
    return impl_ ? impl_->positive.size() + (impl_->pids.empty() ? 0 : 1) : 0;
}
size_t FilterSet::negative_count() const noexcept {
    return impl_ ? impl_->negative.size() : 0;
}

bool FilterSet::accept(const Event& ev) noexcept {
    if (!impl_) return true;  // moved-from: no filters
    Impl& im = *impl_;
    if (im.limited && !im.within_limits(ev)) return false;
    if (im.positive.empty() && im.negative.empty() && im.pids.empty()) return true;
    bool found = im.pid_match(ev);
    for (const auto& f : im.positive) {
        if (found) break;
        if (f.test(ev) == FilterResult::match) {
            found = true;
            break;
        }
    }
    bool is_stack = false;
    if (!found && (!im.positive.empty() || !im.pids.empty())) {
        // Hidden, unless it is a stack trace of a shown event. trace-cmd does not update the
        // per-CPU state on this path.
        if (!im.stack_follows(ev)) return false;
        is_stack = true;
    }
    found = false;
    for (const auto& f : im.negative) {
        if (f.test(ev) == FilterResult::match) {
            found = true;
            break;
        }
    }
    const int cpu = ev.cpu();
    if (cpu >= 0) {
        const size_t c = static_cast<size_t>(cpu);
        if (c >= im.last_shown.size())
            im.last_shown.resize(std::max<size_t>(c + 1, 64), 0);  // once per trace
        im.last_shown[c] = (im.keep_showing_stacks || !is_stack) && !found;
    }
    return !found;
}

void FilterSet::reset() noexcept {
    if (impl_) std::fill(impl_->last_shown.begin(), impl_->last_shown.end(), uint8_t{0});
}

}  // namespace ringscope
