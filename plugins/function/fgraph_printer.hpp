// function_graph events as trace-cmd prints them (libtracecmd's trace-ftrace.c handlers, not a
// libtraceevent plugin), over every kernel's formats (fields found by name: 32/64-bit, packed or
// not, with or without retval, depth int or unsigned):
//   funcgraph_entry followed, next in its buffer, by its own exit (same pid and function): one leaf
//       line "OVERHEAD DURATION |  INDENTfunc();", the exit taken out of the walk
//       (PrintContext::take_next); otherwise "             |  INDENTfunc() {".
//   funcgraph_exit: "OVERHEAD DURATION |  INDENT}", then " /* func */" (fgraph:tailprint).
// fgraph:depth appends " (DEPTH)". An unresolved function prints as "%llx". A field that does not
// read prints tep_get_field_val's complaint and '!', and the line ends there, or (a field the
// handler reads first: an entry's pid or function, an exit's times or depth) goes on with the
// event's print fmt, as libtraceevent prints after a handler that fails; so do entries of a file
// without a funcgraph_exit format.
// Release::k3_4 (trace-cmd 3.3 and later): the leaf needs the next record on the same CPU; the exit
// (and leaf) prints " (ret=...)" where the format has retval (fgraph:retval-skip|dec|hex; by
// default hex, errors -1..-4095 in decimal); fgraph_retaddr_entry prints as an entry with
// " /* <-caller+0xOFF */", and an entry's args[] (6.16's funcgraph-args) print between the
// function's parentheses, from the trace's BTF (function_args.hpp).
#pragma once

#include <string>
#include <unordered_map>

#include <ringscope/handler.hpp>
#include <ringscope/plugin.hpp>

#include "release.hpp"

namespace ringscope::function {

// The plugin's fgraph print options (owned by the framework) and the release.
struct FgraphOptions {
    const PrintOptionValue* tailprint = nullptr;
    const PrintOptionValue* depth = nullptr;
    const PrintOptionValue* retval_skip = nullptr;
    const PrintOptionValue* retval_dec = nullptr;
    const PrintOptionValue* retval_hex = nullptr;
    // fgraph:compat, which `report --compat` sets (an unprefixed -O compat=VERSION); where nothing
    // set it (stream, the SDK's iteration), the release from RINGSCOPE_COMPAT.
    const PrintOptionValue* compat = nullptr;
    Release release = Release::k3_4;
};

class FgraphPrinter final : public EventHandler {
  public:
    explicit FgraphPrinter(FgraphOptions options) : options_(options) {}
    std::string_view name() const override { return "fgraph-print"; }
    std::vector<EventMatch> subscriptions() const override {
        return {
            {"ftrace", "funcgraph_entry"}, {"ftrace", "funcgraph_exit"}, {"ftrace", "fgraph_retaddr_entry"}};
    }
    bool overrides_print() const override { return true; }
    bool print(const Event& ev, PrintContext& pc, TextBuffer& out) override;

  private:
    struct Fields {
        FieldHandle func, depth, calltime, rettime, retval, retaddr, args;
        bool exit = false;
        bool retaddr_event = false;
    };
    const Fields& fields(const Event& ev);
    // The file's funcgraph_exit type (null: none), what an entry's next record must be to be a leaf.
    const EventType* exit_type(const Event& ev);

    // Entry and exit handlers: true when trace-cmd's would return non-zero (it gave up at a field
    // it reads first), so that the print fmt follows.
    bool print_entry(const Event& ev, const Fields& f, PrintContext& pc, TextBuffer& out);
    bool print_exit(const Event& ev, const Fields& f, TextBuffer& out);
    void print_leaf(const Event& ev, const Fields& f, const Event& exit, TextBuffer& out);
    void print_nested(const Event& ev, const Fields& f, TextBuffer& out);
    // The exit's duration (rettime - calltime) and, 3.4 where the format has it, its retval;
    // false after the complaint and '!' when one does not read.
    bool read_exit(const Event& exit, const Fields& xf, uint64_t& duration, uint64_t& retval,
                   TextBuffer& out) const;
    // The overhead and duration columns (blank for kNoDuration), then EV's depth as the indent;
    // false after the complaint and '!' when the depth does not read.
    bool print_columns(const Event& ev, const Fields& f, uint64_t duration, uint64_t& depth,
                       TextBuffer& out) const;
    // " (ret=...)" unless retval-skip.
    void print_retval(uint64_t retval, TextBuffer& out) const;
    // " /* <-caller+0xOFF */" of an entry's retaddr (3.4), when the field reads and resolves.
    std::string caller_comment(const Event& ev, const Fields& f) const;

    static bool on(const PrintOptionValue* o) { return o && o->set; }
    bool v34() const { return prints_as_3_4(options_.compat, options_.release); }

    FgraphOptions options_;
    std::unordered_map<const EventType*, Fields> fields_;
    std::unordered_map<const TraceContext*, const EventType*> exit_types_;
};

}  // namespace ringscope::function
