#include "framework/io/unfinished_trace.hpp"

#include <sys/stat.h>

#include <cerrno>

namespace ringscope::io {

std::string unfinished_trace_head(const std::string& output) {
    return output + ".head";
}

std::optional<Error> unfinished_trace_error(const std::string& output) {
    struct stat st {};
    if (::stat(output.c_str(), &st) == 0 || errno != ENOENT) return std::nullopt;
    if (::stat(unfinished_trace_head(output).c_str(), &st) != 0) return std::nullopt;
    return Error(Errc::not_found,
                 "not written: the record that made it was killed; run `ringscope record "
                 "--recover " +
                     output + "` to save it from " + unfinished_trace_head(output) + " and its CPU files")
        .in_file(output);
}

}  // namespace ringscope::io
