// kvm on `ringscope view`'s timeline: each kvm_exit / kvm_entry tells which vCPU (vcpu_id) the host
// thread runs; each kvm_exit is a mark labelled with its reason (as `kvm exits` names it) and the
// guest function at its guest_rip (resolved as `kvm exits` resolves it).
#pragma once

#include <ringscope/text_buffer.hpp>
#include <ringscope/timeline.hpp>

#include "exit_fields.hpp"
#include "guest_functions.hpp"

namespace ringscope::kvm {

class KvmTimeline final : public TimelineAnnotator {
  public:
    std::string_view name() const override { return "kvm exit"; }
    std::vector<EventMatch> subscriptions() const override {
        return {{"kvm", "kvm_exit"}, {"kvm", "kvm_entry"}};
    }
    void on_event(const Event& ev, TimelineSink& sink) override;

  private:
    ExitFieldsCache types_;
    GuestFunctions guest_;
    TextBuffer reason_;
};

}  // namespace ringscope::kvm
