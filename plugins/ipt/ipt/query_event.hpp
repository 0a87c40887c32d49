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
    trig,  // libipt master's (TRIG packets) and Event Trace's (CFE, EVD packets) from here
    interrupt,
    iret,
    smi,
    rsm,
    sipi,
    init,
    vmentry,
    vmexit,
    shutdown,
    uintr,
    uiret,
    swintr,
    syscall,
    ignore,  // a CFE of an unknown type: takes its FUP, never published
    iflags,  // the interrupt flag (MODE.EXEC), with Config::iflags_events
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
    uint64_t from = 0;                    // async_branch: from; async_disabled: at
    uint64_t cr3 = 0;                     // paging, async_paging
    uint64_t base = 0;                    // vmcs, async_vmcs
    uint64_t payload = 0;                 // ptwrite, mnt
    uint32_t hints = 0, ext = 0;          // mwait
    uint16_t ratio = 0;                   // cbr
    uint8_t exec_mode = 0;                // ExecMode
    uint8_t state = 0, sub_state = 0;     // pwre
    uint8_t last = 0, deepest = 0;        // pwrx
    uint8_t size = 0;                     // ptwrite payload bytes
    uint8_t trbv = 0;                     // trig: the trigger bits
    uint16_t icnt = 0;                    // trig with has_icnt: instructions since the last IP known
    bool mult = false, has_icnt = false;  // trig
    // Event Trace: the vector (interrupt, sipi, uintr, swintr, vmexit with has_vector), cr2
    // (interrupt with has_cr2), the VMX exit reason and qualification (vmexit).
    uint8_t vector = 0;
    uint64_t cr2 = 0, vmxr = 0, vmxq = 0;
    bool has_vector = false, has_cr2 = false, has_vmxr = false, has_vmxq = false;
    bool keeps_fup = false;  // bound to a FUP that goes on to make an asynchronous branch
    bool iflag = false;      // iflags: interrupts enabled
    bool non_root = false, speculative = false, aborted = false, hw = false, interrupt = false, store = false,
         autonomous = false;
    bool resumed = false;  // enabled: where tracing had stopped (set by the instruction flow decoder)

    bool operator==(const QueryEvent&) const = default;
};

}  // namespace ringscope::ipt
