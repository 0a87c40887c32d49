// FilterSet: trace-cmd report's combination of -F filters (tracecmd_filter_match).
#include <algorithm>

#include <ringscope/filter.hpp>

namespace ringscope {

struct FilterSet::Impl {
    std::vector<EventFilter> positive;
    std::vector<EventFilter> negative;
    bool stack_ids_known = false;
    int64_t kernel_stack_id = -1;
    int64_t user_stack_id = -1;
    std::vector<uint8_t> last_shown;  // per CPU: the last decided event was shown

    bool stack_follows(const Event& ev) const noexcept {
        const int64_t id = ev.id();
        if (id != kernel_stack_id && id != user_stack_id) return false;
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

bool FilterSet::empty() const noexcept {
    return !impl_ || (impl_->positive.empty() && impl_->negative.empty());
}
size_t FilterSet::positive_count() const noexcept {
    return impl_ ? impl_->positive.size() : 0;
}
size_t FilterSet::negative_count() const noexcept {
    return impl_ ? impl_->negative.size() : 0;
}

bool FilterSet::accept(const Event& ev) noexcept {
    if (!impl_) return true;  // moved-from: no filters
    Impl& im = *impl_;
    if (im.positive.empty() && im.negative.empty()) return true;
    bool found = false;
    for (const auto& f : im.positive) {
        if (f.test(ev) == FilterResult::match) {
            found = true;
            break;
        }
    }
    bool is_stack = false;
    if (!found && !im.positive.empty()) {
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
        im.last_shown[c] = !is_stack && !found;
    }
    return !found;
}

void FilterSet::reset() noexcept {
    if (impl_) std::fill(impl_->last_shown.begin(), impl_->last_shown.end(), uint8_t{0});
}

}  // namespace ringscope
