// Parses one event `format` file (events/SYSTEM/NAME/format) the way libtraceevent does: the
// header (name, ID, fields) must parse or the event is unusable (an Error with line:column); a
// print fmt that does not parse only marks the event failed ("[FAILED TO PARSE]" when printed).
#pragma once

#include <memory>
#include <string_view>

#include <ringscope/error.hpp>
#include <ringscope/event_type.hpp>

#include "framework/format/print_program.hpp"

namespace ringscope::format {

struct ParsedFormat {
    std::unique_ptr<EventType> type;  // finalize()d, tables filled
    std::unique_ptr<Program> program;
    // libtraceevent 1.7.1 set errno to EINVAL parsing the print fmt (PrintParser::sets_einval):
    // trace-cmd 3.1.6 exits with it when a filter fails later (cli/report_inputs.hpp).
    bool sets_einval = false;
};

// long_size: the traced kernel's sizeof(long) (4 or 8); it decides sizeof(long) in print fmts
// and the element size of long arrays.
Expected<ParsedFormat> parse_format(std::string_view text, std::string_view system, int long_size = 8);

}  // namespace ringscope::format
