// The fields of kvm_exit / kvm_entry the exits analysis and the timeline read, found once per event
// type: vcpu_id (both), exit_reason, isa, guest_rip and the reason names (kvm_exit).
#pragma once

#include <unordered_map>

#include <ringscope/event_type.hpp>

#include "exit_reasons.hpp"
#include "kvm_fields.hpp"

namespace ringscope::kvm {

struct ExitFields {
    bool is_exit = false;
    NumField reason, isa, rip, vcpu;
    ExitReasonNames names;
};

// ExitFields per event type, made on first use.
class ExitFieldsCache {
  public:
    const ExitFields& of(const EventType& type) {
        auto it = types_.find(&type);
        if (it != types_.end()) return it->second;
        ExitFields f;
        f.is_exit = type.name == "kvm_exit";
        f.vcpu = NumField::find(type, "vcpu_id");
        if (f.is_exit) {
            f.reason = NumField::find(type, "exit_reason");
            f.isa = NumField::find(type, "isa");
            f.rip = NumField::find(type, "guest_rip");
            f.names = ExitReasonNames(type, "exit_reason");
        }
        return types_.emplace(&type, std::move(f)).first->second;
    }
    void clear() { types_.clear(); }

  private:
    std::unordered_map<const EventType*, ExitFields> types_;
};

}  // namespace ringscope::kvm
