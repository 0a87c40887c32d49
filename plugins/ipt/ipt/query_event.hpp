// An event of the query decoder. Kind numbers follow libipt's enum pt_event_type; the payload is
// flat (one field per meaning) instead of libipt's union.
#pragma once

#include <cstdint>

namespace ringscope::ipt {

enum class EventKind : uint8_t {
    enabled,
    disabled,
    async_disabled,
    async_branch,
    paging,
    async_paging,
    overflow,
    exec_mode,
    tsx,
    stop,
    vmcs,
    async_vmcs,
    exstop,
    mwait,
    pwre,
    pwrx,
    ptwrite,
    tick,
    cbr,
    mnt,
};

const char* event_kind_name(EventKind kind) noexcept;

struct QueryEvent {
    EventKind type = EventKind::enabled;
    bool ip_suppressed = false;
    bool status_update = false;
    bool has_tsc = false;
    uint64_t tsc = 0;
    uint32_t lost_mtc = 0, lost_cyc = 0;

    // enabled, disabled, async_disabled (to), async_branch (to), async_paging, overflow,
    // exec_mode, tsx, async_vmcs, exstop, mwait, ptwrite
    uint64_t ip = 0;
    uint64_t from = 0;                 // async_branch: from; async_disabled: at
    uint64_t cr3 = 0;                  // paging, async_paging
    uint64_t base = 0;                 // vmcs, async_vmcs
    uint64_t payload = 0;              // ptwrite, mnt
    uint32_t hints = 0, ext = 0;       // mwait
    uint16_t ratio = 0;                // cbr
    uint8_t exec_mode = 0;             // ExecMode
    uint8_t state = 0, sub_state = 0;  // pwre
    uint8_t last = 0, deepest = 0;     // pwrx
    uint8_t size = 0;                  // ptwrite payload bytes
    bool non_root = false, speculative = false, aborted = false, hw = false, interrupt = false, store = false,
         autonomous = false;
    bool resumed = false;  // enabled: where tracing had stopped (set by the instruction flow decoder)

    bool operator==(const QueryEvent&) const = default;
};

}  // namespace ringscope::ipt
