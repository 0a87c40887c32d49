// libtraceevent's field reads as its plugins and trace-cmd's ftrace handlers use them.
#pragma once

#include <cstdint>
#include <string_view>

#include <ringscope/event.hpp>
#include <ringscope/text_buffer.hpp>

namespace ringscope::function {

// tep_find_field: one of the event's own fields (not a common one); not found: an empty handle.
FieldHandle own_field(const EventType& t, std::string_view name);

// tep_get_field_val: false when the field is missing or not a 1/2/4/8-byte number, after the
// complaint ("<CANT FIND FIELD name>" / " name=INVALID") when `complain` (its err argument) is set.
// The value is the field's bytes zero-extended, whatever its signedness.
bool get_field_val(const Event& ev, const FieldHandle& h, std::string_view name, uint64_t& val,
                   TextBuffer& out, bool complain = true);

}  // namespace ringscope::function
