// libtraceevent 1.7.1's function plugin, with its default options (indent on, parent off, offset off):
//   function:     the traced function's kernel symbol (0x%llx when unresolved), indented by three
//                 blanks per call depth guessed from the parent (see CallIndent).
//   func_repeats: the same, then " (count: N  last_ts: TIME)" with the time of the first repeat.
//   kernel_stack: "<stack trace >\n" and one "=> FUNC (addr)\n" / "=> addr\n" line per word up to -1.
//   raw_data:     "# ID" then the bytes of buf in hex.
// A field that cannot be read prints tep_get_field_val's complaint and '!', then the default print.
#pragma once

#include <unordered_map>

#include <ringscope/handler.hpp>

#include "call_indent.hpp"

namespace ringscope::function {

class FunctionPrinter final : public EventHandler {
  public:
    std::string_view name() const override { return "function-print"; }
    std::vector<EventMatch> subscriptions() const override {
        return {{"ftrace", "function"},
                {"ftrace", "kernel_stack"},
                {"ftrace", "raw_data"},
                {"ftrace", "func_repeats"}};
    }
    bool overrides_print() const override { return true; }
    bool print(const Event& ev, PrintContext& pc, TextBuffer& out) override;

  private:
    enum class Kind { kFunction, kRepeats, kStack, kRawData };
    struct Fields {
        Kind kind;
        FieldHandle ip, parent_ip, count, top_delta, bottom_delta, id;  // tep_find_field: own fields
        FieldHandle caller, buf;                                        // tep_find_any_field
    };
    const Fields& fields(const Event& ev);
    // Returns false after printing the complaint and '!' (the caller then adds the default print).
    bool print_function(const Event& ev, const Fields& f, TextBuffer& out);
    void print_repeats(const Event& ev, const Fields& f, PrintContext& pc, TextBuffer& out);
    void print_stack(const Event& ev, const Fields& f, TextBuffer& out);
    void print_raw_data(const Event& ev, const Fields& f, PrintContext& pc, TextBuffer& out);

    std::unordered_map<const EventType*, Fields> fields_;
    CallIndent indent_;
};

}  // namespace ringscope::function
