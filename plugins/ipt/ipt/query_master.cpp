// libipt master's packets and events in the query decoder (QueryCore::master_): TRIG, Event
// Trace's CFE and EVD, MODE.EXEC's events, and the release of the power events that wait for an
// EXSTOP.
#include "ipt/errors.hpp"
#include "ipt/query_decoder.hpp"

namespace ringscope::ipt {

int QueryCore::move_events(Binding from, Binding to, bool keep_ip) noexcept {
    while (const QueryEvent* ev = evq_.dequeue(from)) {
        QueryEvent* moved = evq_.enqueue(to);
        if (!moved) return -pte_nomem;
        *moved = *ev;
        if (!keep_ip) moved->ip_suppressed = true;
    }
    return 0;
}

// What waits for an EXSTOP that does not come (a PWRX, an overflow): released as it is.
int QueryCore::flush_power_events() noexcept {
    int status = move_events(evb_exstop, evb_now, false);
    if (status < 0) return status;
    return move_events(evb_pwre, evb_now, false);
}

// libipt master: a trigger, at the IP of the FUP that follows, after icnt instructions from the
// last IP the trace gave (the instruction flow decoder counts them), or without an IP.
int QueryCore::decode_trig() noexcept {
    Packet packet;
    int size = read(packet, PacketKind::trig);
    if (size < 0) return size;
    const PacketTrig& t = packet.payload.trig;
    QueryEvent* ev = nullptr;
    if (t.ip) {
        // The FUP gives the precise IP: a count there makes no sense.
        if (!t.icntv || t.icnt) return -pte_bad_packet;
        ev = evq_.enqueue(evb_fup);
        if (!ev) return -pte_nomem;
    } else {
        // Without tracing the IP is given, never counted.
        if (t.icntv && t.icnt && !enabled_) return -pte_bad_packet;
        ev = evq_.standalone();
        ev->has_icnt = t.icntv;
        ev->icnt = t.icnt;
        ev->ip_suppressed = !t.icntv;
        int status = event_time(*ev);
        if (status < 0) return status;
        event_ = ev;
    }
    ev->type = EventKind::trig;
    ev->trbv = t.trbv;
    ev->mult = t.mult;
    pos_ += size;
    return 0;
}

// Event Trace (libipt master): an EVD's details wait for the CFE they belong to.
int QueryCore::decode_evd() noexcept {
    Packet packet;
    int size = read(packet, PacketKind::evd);
    if (size < 0) return size;
    const PacketEvd& e = packet.payload.evd;
    QueryEvent* ev = evq_.peek(evb_cfe);
    switch (e.type) {
        case 0:  // CR2, for a page fault's interrupt
            if (ev) return -pte_bad_context;
            if (!(ev = evq_.enqueue(evb_cfe))) return -pte_nomem;
            ev->type = EventKind::interrupt;
            ev->has_cr2 = true;
            ev->cr2 = e.payload;
            break;
        case 1:  // VMX exit qualification
        case 2:  // VMX exit reason
            if (!ev) {
                if (!(ev = evq_.enqueue(evb_cfe))) return -pte_nomem;
                ev->type = EventKind::vmexit;
            }
            if (ev->type != EventKind::vmexit) return -pte_bad_context;
            if (e.type == 1) {
                if (ev->has_vmxq) return -pte_bad_context;
                ev->has_vmxq = true;
                ev->vmxq = e.payload;
            } else {
                if (ev->has_vmxr) return -pte_bad_context;
                ev->has_vmxr = true;
                ev->vmxr = e.payload;
            }
            break;
        default:
            // Details of unknown kinds are not needed to follow the flow.
            break;
    }
    pos_ += size;
    return 0;
}

// Event Trace (libipt master): a control flow event. With its IP bit it binds to the FUP that
// follows and takes it; the asynchronous ones bind to that FUP without the bit while tracing
// (the FUP then starts the asynchronous branch), the others are published here, without IP.
int QueryCore::decode_cfe() noexcept {
    Packet packet;
    int size = read(packet, PacketKind::cfe);
    if (size < 0) return size;
    const PacketCfe& c = packet.payload.cfe;
    static constexpr EventKind kKinds[16] = {
        EventKind::ignore, EventKind::interrupt, EventKind::iret,     EventKind::smi,
        EventKind::rsm,    EventKind::sipi,      EventKind::init,     EventKind::vmentry,
        EventKind::vmexit, EventKind::vmexit,    EventKind::shutdown, EventKind::ignore,
        EventKind::uintr,  EventKind::uiret,     EventKind::swintr,   EventKind::syscall};
    const EventKind kind = c.type < 16 ? kKinds[c.type] : EventKind::ignore;
    QueryEvent details;
    if (QueryEvent* pending = evq_.dequeue(evb_cfe)) {
        // Only an interrupt or a VM exit has details.
        if (pending->type != kind) return -pte_bad_context;
        details = *pending;
    }
    details.type = kind;
    bool async = false;
    switch (kind) {
        case EventKind::ignore:
            if (c.ip) {
                QueryEvent* ev = evq_.enqueue(evb_fup);
                if (!ev) return -pte_nomem;
                ev->type = EventKind::ignore;
            }
            pos_ += size;
            return 0;
        case EventKind::vmexit:
            if (c.type == 9) {
                details.has_vector = true;
                details.vector = c.vector;
            }
            async = true;
            break;
        case EventKind::rsm:
        case EventKind::sipi:
            if (c.ip) return -pte_bad_packet;
            details.vector = c.vector;
            details.ip_suppressed = true;
            async = true;
            break;
        case EventKind::interrupt:
        case EventKind::uintr:
        case EventKind::swintr:
            details.vector = c.vector;
            async = true;
            break;
        case EventKind::smi:
        case EventKind::init:
        case EventKind::syscall:
            async = true;
            break;
        default:
            break;
    }
    QueryEvent* ev = nullptr;
    if (c.ip || (async && enabled_)) {
        if (!(ev = evq_.enqueue(evb_fup))) return -pte_nomem;
        *ev = details;
        ev->keeps_fup = !c.ip;
    } else {
        ev = evq_.standalone();
        *ev = details;
        ev->ip_suppressed = true;
        int status = event_time(*ev);
        if (status < 0) return status;
        event_ = ev;
    }
    pos_ += size;
    return 0;
}

int QueryCore::decode_mode_exec(const PacketMode& m, const uint8_t* after) noexcept {
    const uint8_t mode = static_cast<uint8_t>(exec_mode_of(m));
    const bool changed = !mode_exec_valid_ || mode != exec_mode_;
    const bool iflag_changed = config_.iflags_events && (!mode_exec_valid_ || (m.iflag != 0) != iflag_);
    mode_exec_valid_ = true;
    exec_mode_ = mode;
    iflag_ = m.iflag != 0;
    const Binding at = first_packet_is(config_, after, PacketType::fup, false) > 0 ? evb_fup : evb_tip;
    if (!changed && !iflag_changed) {
        // Nothing to tell; a FUP is still this packet's, not an asynchronous branch.
        if (at == evb_fup) fup_taken_ = true;
        return 0;
    }
    if (changed) {
        QueryEvent* ev = evq_.enqueue(at);
        if (!ev) return -pte_nomem;
        ev->type = EventKind::exec_mode;
        ev->exec_mode = mode;
        int status = event_time(*ev);
        if (status < 0) return status;
    }
    if (iflag_changed) {
        QueryEvent* ev = evq_.enqueue(at);
        if (!ev) return -pte_nomem;
        ev->type = EventKind::iflags;
        ev->iflag = iflag_;
        int status = event_time(*ev);
        if (status < 0) return status;
    }
    return 0;
}

bool QueryCore::mode_exec_is_silent() const noexcept {
    Packet packet;
    if (read(packet, PacketKind::mode) < 0) return false;
    const PacketMode& m = packet.payload.mode;
    return m.leaf == ModeLeaf::exec && mode_exec_valid_ &&
           static_cast<uint8_t>(exec_mode_of(m)) == exec_mode_ &&
           (!config_.iflags_events || (m.iflag != 0) == iflag_);
}

// In PSB+: the state the decoder knew must be the one the header restates.
int QueryCore::header_mode_exec(const PacketMode& m) noexcept {
    const uint8_t mode = static_cast<uint8_t>(exec_mode_of(m));
    if (mode_exec_valid_) {
        if (config_.iflags_events && (m.iflag != 0) != iflag_) return -pte_bad_status_update;
        if (mode != exec_mode_) return -pte_bad_status_update;
        return 0;
    }
    mode_exec_valid_ = true;
    exec_mode_ = mode;
    iflag_ = m.iflag != 0;
    return 0;
}

}  // namespace ringscope::ipt
