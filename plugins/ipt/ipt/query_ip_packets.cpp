// The query decoder's packets that carry an IP: TIP (an indirect branch's target), TIP.PGE and
// TIP.PGD (tracing enabled and disabled) and FUP (where an asynchronous event happened), and the
// events that wait for them bound there.
#include "ipt/errors.hpp"
#include "ipt/query_decoder.hpp"

namespace ringscope::ipt {

int QueryCore::decode_ip(Packet& packet) noexcept {
    int size = read_packet_kind(packet, next_, pos_, config_);
    if (size < 0) return size;
    int status = ip_.update(packet.payload.ip);
    if (status < 0) return status;
    return size;
}

int QueryCore::decode_tip() noexcept {
    Packet packet;
    int size = decode_ip(packet);
    if (size < 0) return size;
    QueryEvent* ev = evq_.dequeue(evb_tip);
    if (ev) {
        int status;
        switch (ev->type) {
            case EventKind::async_branch:
                consume_packet_ = true;
                status = event_ip(ev->ip, *ev);
                break;
            case EventKind::async_paging:
            case EventKind::async_vmcs:
            case EventKind::exec_mode:
            case EventKind::iflags:
                status = event_ip(ev->ip, *ev);
                break;
            default:
                status = -pte_bad_context;
                break;
        }
        if (status < 0) return status;
        event_ = ev;
        if (evq_.pending(evb_tip)) return 0;
        // Unless an event consumed it, the TIP stays for indirect_branch.
        if (!consume_packet_) return 0;
        consume_packet_ = false;
    }
    pos_ += size;
    return 0;
}

int QueryCore::decode_tip_pge() noexcept {
    Packet packet;
    int size = decode_ip(packet);
    if (size < 0) return size;
    QueryEvent* ev = nullptr;
    // The enabled event comes first; queued events bound to this TIP.PGE follow.
    if (!consume_packet_) {
        ev = evq_.standalone();
        ev->type = EventKind::enabled;
        if (ip_.query(&ev->ip) < 0) return -pte_bad_packet;
        int status = event_time(*ev);
        if (status < 0) return status;
        // Drop TNT bits the user did not consume at the disable.
        tnt_.init();
        consume_packet_ = true;
        enabled_ = true;
    } else {
        ev = evq_.dequeue(evb_tip);
        if (ev) {
            if (ev->type != EventKind::exec_mode && ev->type != EventKind::iflags) return -pte_bad_context;
            int status = event_ip(ev->ip, *ev);
            if (status < 0) return status;
        }
    }
    if (!ev) return -pte_internal;
    event_ = ev;
    if (evq_.pending(evb_tip)) return 0;
    if (!consume_packet_) return -pte_internal;
    consume_packet_ = false;
    pos_ += size;
    return 0;
}

int QueryCore::decode_tip_pgd() noexcept {
    Packet packet;
    int size = decode_ip(packet);
    if (size < 0) return size;
    QueryEvent* ev = evq_.dequeue(evb_tip);
    if (ev) {
        switch (ev->type) {
            case EventKind::async_branch: {
                // An async branch that disables tracing becomes an async disable.
                ev->type = EventKind::async_disabled;
                int status = event_ip(ev->ip, *ev);
                if (status < 0) return status;
                break;
            }
            case EventKind::async_paging:
            case EventKind::async_vmcs:
            case EventKind::exec_mode:
            case EventKind::iflags:
                // Tracing is off when these apply: no IP.
                ev->ip_suppressed = true;
                break;
            default:
                return -pte_bad_context;
        }
    } else {
        ev = evq_.standalone();
        ev->type = EventKind::disabled;
        int status = event_ip(ev->ip, *ev);
        if (status < 0) return status;
        status = event_time(*ev);
        if (status < 0) return status;
    }
    event_ = ev;
    if (evq_.pending(evb_tip)) return 0;
    enabled_ = false;
    pos_ += size;
    return 0;
}

// An event that waited for this FUP: its IP (and time) from it, and whether it takes the FUP
// (consume_packet_); a FUP nothing takes stays, and makes an async branch next.
int QueryCore::bind_to_fup(QueryEvent& ev) noexcept {
    switch (ev.type) {
        case EventKind::overflow:
            consume_packet_ = true;
            return ip_.query(&ev.ip);  // no suppressed IP here
        case EventKind::tsx:
            if (!ev.aborted) consume_packet_ = true;
            return event_ip(ev.ip, ev);
        case EventKind::exstop:
            // libipt master: the PWREs before the EXSTOP follow it.
            if (int moved = move_events(evb_pwre, evb_now, false); moved < 0) return moved;
            consume_packet_ = true;
            return event_ip(ev.ip, ev);
        case EventKind::mwait:
        case EventKind::ptwrite:
        case EventKind::trig:
        case EventKind::exec_mode:
        case EventKind::iflags:
            consume_packet_ = true;
            return event_ip(ev.ip, ev);
        case EventKind::interrupt:
        case EventKind::iret:
        case EventKind::smi:
        case EventKind::rsm:
        case EventKind::sipi:
        case EventKind::init:
        case EventKind::vmentry:
        case EventKind::vmexit:
        case EventKind::shutdown:
        case EventKind::uintr:
        case EventKind::uiret:
        case EventKind::swintr:
        case EventKind::syscall: {
            if (!ev.keeps_fup) consume_packet_ = true;
            int status = event_time(ev);
            // RSM and SIPI bind to the FUP without taking its IP.
            if (status >= 0 && ev.type != EventKind::rsm && ev.type != EventKind::sipi)
                status = event_ip(ev.ip, ev);
            return status;
        }
        default:
            return -pte_internal;
    }
}

// A FUP on its own: it starts an async branch that binds to the next TIP.
int QueryCore::start_async_branch() noexcept {
    uint64_t ip = 0;
    int status = ip_.query(&ip);
    if (status < 0) return status;
    QueryEvent* ev = evq_.enqueue(evb_tip);
    if (!ev) return -pte_nomem;
    ev->type = EventKind::async_branch;
    ev->from = ip;
    return event_time(*ev);
}

int QueryCore::decode_fup() noexcept {
    Packet packet;
    int size = decode_ip(packet);
    if (size < 0) return size;
    QueryEvent* ev = evq_.dequeue(evb_fup);
    if (ev && ev->type == EventKind::ignore) {
        // An unknown CFE's FUP: taken, nothing published.
        consume_packet_ = true;
        if (evq_.pending(evb_fup)) return 0;
        consume_packet_ = false;
    } else if (ev) {
        int status = bind_to_fup(*ev);
        if (status < 0) return status;
        event_ = ev;
        if (evq_.pending(evb_fup)) return 0;
        if (!consume_packet_) return 0;
        consume_packet_ = false;
    } else if (fup_taken_) {
        // libipt master: a MODE.EXEC that changed nothing took this FUP.
        fup_taken_ = false;
    } else {
        int status = start_async_branch();
        if (status < 0) return status;
    }
    pos_ += size;
    return 0;
}

}  // namespace ringscope::ipt
