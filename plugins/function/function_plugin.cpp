// plugins/function: the function tracer's events (ftrace/function, kernel_stack, raw_data,
// func_repeats) as libtraceevent's function plugin prints them, and the function_graph tracer's
// (funcgraph_entry/exit) as trace-cmd prints them.
#include <cstdlib>
#include <string_view>

#include <ringscope/plugin.hpp>

#include "fgraph_printer.hpp"
#include "function_printer.hpp"

namespace {

// The trace-cmd release to print as where `report --compat` did not say: RINGSCOPE_COMPAT ("3.1", or
// "3.4", the default). Read per run, when the handler is made.
ringscope::function::Release release_from_environment() {
    const char* v = std::getenv("RINGSCOPE_COMPAT");
    return v && std::string_view(v).starts_with("3.1") ? ringscope::function::Release::k3_1
                                                       : ringscope::function::Release::k3_4;
}

class FunctionPlugin final : public ringscope::Plugin {
  public:
    void register_into(ringscope::PluginRegistry& r) override {
        // libtraceevent's and trace-cmd's names, defaults and texts, so trace-cmd users' -O
        // arguments carry over.
        auto boolean = [&r](const char* plugin, const char* name, const char* doc, bool set = false) {
            ringscope::PrintOption p;
            p.plugin = plugin;
            p.name = name;
            p.doc = doc;
            p.set = set;
            return &r.add_print_option(std::move(p));
        };
        ringscope::function::FunctionOptions o;
        o.parent = boolean("ftrace", "parent", "Print parent of functions for function events");
        o.indent = boolean("ftrace", "indent", "Try to show function call indents, based on parents", true);
        o.offset = boolean("ftrace", "offset", "Show function names as well as their offsets");

        ringscope::function::FgraphOptions g;
        g.tailprint =
            boolean("fgraph", "tailprint", "Print function name at function exit in function graph");
        g.depth = boolean("fgraph", "depth", "Show the depth of each entry");
        g.retval_skip = boolean("fgraph", "retval-skip", "Skip printing function retval in function graph");
        g.retval_dec = boolean("fgraph", "retval-dec",
                               "Print function retval in decimal at function exit in function graph");
        g.retval_hex = boolean("fgraph", "retval-hex",
                               "Print function retval in hex at function exit in function graph");
        ringscope::PrintOption compat;
        compat.plugin = "fgraph";
        compat.name = "compat";
        compat.doc = "The trace-cmd release printed as (set by report --compat): 3.1 or 3.4";
        compat.takes_value = true;
        // Empty: not set, the release comes from the environment.
        g.compat = o.compat = &r.add_print_option(std::move(compat));
        r.add_handler([o] {
            ringscope::function::FunctionOptions run = o;
            run.release = release_from_environment();
            return std::make_unique<ringscope::function::FunctionPrinter>(run);
        });
        r.add_handler([g] {
            ringscope::function::FgraphOptions run = g;
            run.release = release_from_environment();
            return std::make_unique<ringscope::function::FgraphPrinter>(run);
        });
    }
};

}  // namespace

RINGSCOPE_PLUGIN("function", "1.0", FunctionPlugin)
