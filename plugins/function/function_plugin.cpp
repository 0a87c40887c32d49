// plugins/function: the function tracer's events (ftrace/function, kernel_stack, raw_data,
// func_repeats) as libtraceevent's function plugin prints them.
#include <ringscope/plugin.hpp>

#include "function_printer.hpp"

namespace {

class FunctionPlugin final : public ringscope::Plugin {
  public:
    void register_into(ringscope::PluginRegistry& r) override {
        // libtraceevent's names, defaults and texts, so trace-cmd users' -O arguments carry over.
        auto boolean = [&r](const char* name, const char* doc, bool set) {
            ringscope::PrintOption p;
            p.plugin = "ftrace";
            p.name = name;
            p.doc = doc;
            p.set = set;
            return &r.add_print_option(std::move(p));
        };
        ringscope::function::FunctionOptions o;
        o.parent = boolean("parent", "Print parent of functions for function events", false);
        o.indent = boolean("indent", "Try to show function call indents, based on parents", true);
        o.offset = boolean("offset", "Show function names as well as their offsets", false);
        r.add_handler([o] { return std::make_unique<ringscope::function::FunctionPrinter>(o); });
    }
};

}  // namespace

RINGSCOPE_PLUGIN("function", "1.0", FunctionPlugin)
