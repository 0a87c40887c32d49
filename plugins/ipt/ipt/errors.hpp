// libipt's error model: negative pt_error_code values (same names and numbers as libipt) and the
// positive status bits the query decoder returns.
#pragma once

#include <cstdint>

namespace ringscope::ipt {

enum PtError : int {
    pte_ok = 0,
    pte_internal,
    pte_invalid,
    pte_nosync,
    pte_bad_opc,
    pte_bad_packet,
    pte_bad_context,
    pte_eos,
    pte_bad_query,
    pte_nomem,
    pte_bad_config,
    pte_noip,
    pte_ip_suppressed,
    pte_nomap,
    pte_bad_insn,
    pte_no_time,
    pte_no_cbr,
    pte_bad_image,
    pte_bad_lock,
    pte_not_supported,
    pte_retstack_empty,
    pte_bad_retcomp,
    pte_bad_status_update,
    pte_no_enable,
    pte_event_ignored,
    pte_overflow,
    pte_bad_file,
    pte_bad_cpu,
};

enum PtStatus : int {
    pts_event_pending = 1 << 0,
    pts_ip_suppressed = 1 << 1,
    pts_eos = 1 << 2,
};

// The error code of a status: pte_ok for status >= 0, else -status.
inline PtError pt_errcode(int status) noexcept {
    return status >= 0 ? pte_ok : static_cast<PtError>(-status);
}

// "pte_eos" for pte_eos (accepts a negative status too); "pte_unknown" when out of range.
const char* pt_error_name(int code) noexcept;
// libipt's pt_errstr() text, e.g. "reached end of trace stream".
const char* pt_error_string(int code) noexcept;

}  // namespace ringscope::ipt
