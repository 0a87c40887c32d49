// The lines libtraceevent 1.7.1's hrtimer plugin prints:
//   hrtimer_expire_entry: "hrtimer=0x%llx now=%llu function=NAME/0xDELTA"
//   hrtimer_start:        "hrtimer=0x%llx function=NAME/0xDELTA expires=%llu softexpires=%llu"
// where NAME/0xDELTA is tep_print_func_field's rendering (DELTA = symbol start - address, so an
// address inside a function shows a wrapped negative number), or 0x%08llx when unresolved.
#pragma once

#include <unordered_map>

#include <ringscope/handler.hpp>

namespace ringscope::hrtimer {

class HrtimerPrinter final : public EventHandler {
  public:
    std::string_view name() const override { return "hrtimer-print"; }
    std::vector<EventMatch> subscriptions() const override {
        return {{"timer", "hrtimer_expire_entry"}, {"timer", "hrtimer_start"}};
    }
    bool overrides_print() const override { return true; }
    bool print(const Event& ev, PrintContext& pc, TextBuffer& out) override;

  private:
    // Looked up once per event type; tep_find_field semantics (event fields only, not common).
    struct Fields {
        FieldHandle timer, hrtimer, now, function, expires, softexpires;
    };
    const Fields& fields(const EventType& t);

    std::unordered_map<const EventType*, Fields> fields_;
};

}  // namespace ringscope::hrtimer
