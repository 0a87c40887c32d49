#include "function_args.hpp"

namespace ringscope::function {

bool print_function_args(const Event& ev, const FieldHandle& args, std::string_view func, TextBuffer& out) {
    if (!args || func.empty()) return false;
    const auto payload = ev.payload();
    const size_t long_size = ev.context().long_size() == 4 ? 4 : 8;
    if (payload.size() <= args.offset) return false;
    // The record ends with the values: as many as whole longs fit (the last word padding aside).
    const size_t count = (payload.size() - args.offset) / long_size;
    if (count == 0) return false;
    return ev.context().print_function_args(payload.subspan(args.offset), count, static_cast<int>(long_size),
                                            func, out);
}

}  // namespace ringscope::function
