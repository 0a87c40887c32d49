// The arguments a function or funcgraph_entry record carries in args[] (kernels with
// CONFIG_FUNCTION_TRACE_ARGS, 6.16 and later, while the func-args / funcgraph-args option is set):
// trace-cmd 3.4 prints them between the function's parentheses from the trace's BTF.
#pragma once

#include <string_view>

#include <ringscope/event.hpp>
#include <ringscope/text_buffer.hpp>

namespace ringscope::function {

// Appends the arguments ("name=value, ..." or hex, TraceContext::print_function_args) of EV's
// args[] (ARGS: the field's handle) for FUNC; false, with nothing appended, when the record holds
// none (the kernel records them only with the option set) or FUNC is unresolved (empty).
bool print_function_args(const Event& ev, const FieldHandle& args, std::string_view func, TextBuffer& out);

}  // namespace ringscope::function
