// libtraceevent 1.7.1's function plugin and its options (report -O ftrace:NAME; defaults indent on,
// parent off, offset off):
//   function:     the traced function's kernel symbol (0x%llx when unresolved), indented by three
//                 blanks per call depth guessed from the parent (indent, see CallIndent), then
//                 "+0xOFF " after a resolved symbol (offset), 3.4: "(ARGS)" where the record
//                 carries args[] (function_args.hpp), and " <-- PARENT" (parent).
//   func_repeats: the same, then " (count: N  last_ts: TIME)" with the time of the first repeat.
//   kernel_stack: "<stack trace >\n" and one "=> FUNC (addr)\n" / "=> addr\n" line per word up to -1.
//   raw_data:     "# ID" then the bytes of buf in hex.
// A field that cannot be read prints tep_get_field_val's complaint and '!', then the default print.
#pragma once

#include <unordered_map>

#include <ringscope/handler.hpp>
#include <ringscope/plugin.hpp>

#include "call_indent.hpp"
#include "release.hpp"

namespace ringscope::function {

// The plugin's print options, owned by the framework (PluginRegistry::add_print_option).
struct FunctionOptions {
    const PrintOptionValue* parent = nullptr;
    const PrintOptionValue* indent = nullptr;
    const PrintOptionValue* offset = nullptr;
    // The release (release.hpp): 3.4 prints a function event's args[] after its name.
    const PrintOptionValue* compat = nullptr;
    Release release = Release::k3_4;
};

class FunctionPrinter final : public EventHandler {
  public:
    explicit FunctionPrinter(FunctionOptions options) : options_(options) {}
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
        FieldHandle ip, parent_ip, count, top_delta, bottom_delta, id, args;  // tep_find_field
        FieldHandle caller, buf;                                              // tep_find_any_field
    };
    const Fields& fields(const Event& ev);
    // Returns false after printing the complaint and '!' (the caller then adds the default print).
    bool print_function(const Event& ev, const Fields& f, TextBuffer& out);
    void print_repeats(const Event& ev, const Fields& f, PrintContext& pc, TextBuffer& out);
    void print_stack(const Event& ev, const Fields& f, TextBuffer& out);
    void print_raw_data(const Event& ev, const Fields& f, PrintContext& pc, TextBuffer& out);

    static bool on(const PrintOptionValue* o) { return o && o->set; }

    FunctionOptions options_;
    std::unordered_map<const EventType*, Fields> fields_;
    CallIndent indent_;
};

}  // namespace ringscope::function
