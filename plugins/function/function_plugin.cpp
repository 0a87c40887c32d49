// plugins/function: the function tracer's events (ftrace/function, kernel_stack, raw_data,
// func_repeats) as libtraceevent's function plugin prints them.
#include <ringscope/plugin.hpp>

#include "function_printer.hpp"

namespace {

class FunctionPlugin final : public ringscope::Plugin {
  public:
    void register_into(ringscope::PluginRegistry& r) override {
        r.add_handler([] { return std::make_unique<ringscope::function::FunctionPrinter>(); });
    }
};

}  // namespace

RINGSCOPE_PLUGIN("function", "1.0", FunctionPlugin)
