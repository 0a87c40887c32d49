// libtraceevent 1.7.1's futex plugin: sys_enter_futex as "op=FUTEX_WAIT|FUTEX_PRIVATE_FLAG
// uaddr=0x%08llx val=..." with the arguments each operation uses, in the operation's own notation.
// A missing field prints tep_get_field_val's complaint and then the default print; an operation
// past FUTEX_CMP_REQUEUE_PI prints the default only.
#pragma once

#include <array>
#include <unordered_map>

#include <ringscope/handler.hpp>

namespace ringscope::futex {

class FutexPrinter final : public EventHandler {
  public:
    std::string_view name() const override { return "futex-print"; }
    std::vector<EventMatch> subscriptions() const override { return {{"syscalls", "sys_enter_futex"}}; }
    bool overrides_print() const override { return true; }
    bool print(const Event& ev, PrintContext& pc, TextBuffer& out) override;

    // The argument fields in the order the plugin reads them.
    static constexpr int kArgs = 6;

  private:
    std::unordered_map<const EventType*, std::array<FieldHandle, kArgs>> fields_;
};

}  // namespace ringscope::futex
