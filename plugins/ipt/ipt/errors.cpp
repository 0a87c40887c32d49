#include "ipt/errors.hpp"

#include <array>
#include <cstddef>

namespace ringscope::ipt {
namespace {

struct ErrorText {
    const char* name;
    const char* text;
};

constexpr std::array<ErrorText, pte_bad_cpu + 1> kErrors{{
    {"pte_ok", "OK"},
    {"pte_internal", "internal error"},
    {"pte_invalid", "invalid argument"},
    {"pte_nosync", "decoder out of sync"},
    {"pte_bad_opc", "unknown opcode"},
    {"pte_bad_packet", "unknown packet"},
    {"pte_bad_context", "unexpected packet context"},
    {"pte_eos", "reached end of trace stream"},
    {"pte_bad_query", "trace stream does not match query"},
    {"pte_nomem", "out of memory"},
    {"pte_bad_config", "bad configuration"},
    {"pte_noip", "no ip"},
    {"pte_ip_suppressed", "ip has been suppressed"},
    {"pte_nomap", "no memory mapped at this address"},
    {"pte_bad_insn", "unknown instruction"},
    {"pte_no_time", "no timing information"},
    {"pte_no_cbr", "no core:bus ratio"},
    {"pte_bad_image", "bad image"},
    {"pte_bad_lock", "locking error"},
    {"pte_not_supported", "not supported"},
    {"pte_retstack_empty", "compressed return without call"},
    {"pte_bad_retcomp", "bad compressed return"},
    {"pte_bad_status_update", "bad status update"},
    {"pte_no_enable", "expected tracing enabled event"},
    {"pte_event_ignored", "event ignored"},
    {"pte_overflow", "overflow"},
    {"pte_bad_file", "bad file"},
    {"pte_bad_cpu", "unknown cpu"},
}};

int normalize(int code) noexcept {
    return code < 0 ? -code : code;
}

}  // namespace

const char* pt_error_name(int code) noexcept {
    int c = normalize(code);
    return c < static_cast<int>(kErrors.size()) ? kErrors[static_cast<size_t>(c)].name : "pte_unknown";
}

const char* pt_error_string(int code) noexcept {
    int c = normalize(code);
    // libipt's fallback text for a code it does not know.
    return c < static_cast<int>(kErrors.size()) ? kErrors[static_cast<size_t>(c)].text : "internal error.";
}

}  // namespace ringscope::ipt
