// A recording that was killed before it wrote its trace.dat leaves OUTPUT.head beside where
// OUTPUT should be (capture/capture_recovery.hpp assembles the file from it). Readers only need
// to know the name, to tell the user how to get the file instead of "no such file".
#pragma once

#include <optional>
#include <string>

#include <ringscope/error.hpp>

namespace ringscope::io {

// The scratch file a recording of OUTPUT writes first: OUTPUT.head.
std::string unfinished_trace_head(const std::string& output);

// When OUTPUT does not exist but OUTPUT.head does: the one-line error that says how to get it.
std::optional<Error> unfinished_trace_error(const std::string& output);

}  // namespace ringscope::io
