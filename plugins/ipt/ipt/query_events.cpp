// The query decoder's event packets outside PSB+: PIP, MODE, STOP, VMCS, MNT, the power packets
// (EXSTOP, MWAIT, PWRE, PWRX) and PTWRITE, each standalone or bound to the FUP or TIP that
// follows (libipt master's TRIG, CFE, EVD and MODE.EXEC are in query_master.cpp).
#include "ipt/errors.hpp"
#include "ipt/query_decoder.hpp"

namespace ringscope::ipt {

int QueryCore::decode_pip() noexcept {
    Packet packet;
    int size = read(packet, PacketKind::pip);
    if (size < 0) return size;
    // Standalone, or bound to the TIP of an in-flight async branch.
    QueryEvent* ev = evq_.find(evb_tip, EventKind::async_branch);
    if (!ev) {
        ev = evq_.standalone();
        ev->type = EventKind::paging;
        event_ = ev;
    } else {
        ev = evq_.enqueue(evb_tip);
        if (!ev) return -pte_nomem;
        ev->type = EventKind::async_paging;
    }
    ev->cr3 = packet.payload.pip.cr3;
    ev->non_root = packet.payload.pip.nr;
    int status = event_time(*ev);
    if (status < 0) return status;
    pos_ += size;
    return 0;
}

int QueryCore::decode_mode() noexcept {
    Packet packet;
    int size = read(packet, PacketKind::mode);
    if (size < 0) return size;
    const PacketMode& m = packet.payload.mode;
    int status = 0;
    if (m.leaf == ModeLeaf::exec && master_) {
        status = decode_mode_exec(m, pos_ + size);
    } else if (m.leaf == ModeLeaf::exec) {
        QueryEvent* ev = evq_.enqueue(evb_tip);
        if (!ev) return -pte_nomem;
        ev->type = EventKind::exec_mode;
        ev->exec_mode = exec_mode_of(m);
        status = event_time(*ev);
    } else {
        // Standalone while tracing is disabled, without an IP.
        QueryEvent* ev = fup_or_standalone(enabled_);
        if (!ev) return -pte_nomem;
        ev->type = EventKind::tsx;
        ev->speculative = m.intx;
        ev->aborted = m.abrt;
        status = event_time(*ev);
    }
    if (status < 0) return status;
    pos_ += size;
    return 0;
}

QueryEvent* QueryCore::status_event(bool in_header) noexcept {
    if (in_header) return evq_.enqueue(evb_psbend);
    event_ = evq_.standalone();
    return event_;
}

QueryEvent* QueryCore::fup_or_standalone(bool bound) noexcept {
    if (bound) return evq_.enqueue(evb_fup);
    event_ = evq_.standalone();
    event_->ip_suppressed = true;
    return event_;
}

int QueryCore::decode_stop() noexcept {
    QueryEvent* ev = evq_.standalone();
    ev->type = EventKind::stop;
    event_ = ev;
    int status = event_time(*ev);
    if (status < 0) return status;
    pos_ += kStopSize;
    return 0;
}

int QueryCore::decode_vmcs(bool in_header) noexcept {
    Packet packet;
    int size = read(packet, PacketKind::vmcs);
    if (size < 0) return size;
    uint64_t base = packet.payload.vmcs_base;
    if (in_header) {
        QueryEvent* ev = evq_.enqueue(evb_psbend);
        if (!ev) return -pte_nomem;
        ev->type = EventKind::async_vmcs;
        ev->base = base;
        pos_ += size;
        return 0;
    }
    // With an in-flight async paging event, the VMCS event goes first: it takes the paging
    // event's place and the paging event moves to the end.
    if (QueryEvent* paging = evq_.find(evb_tip, EventKind::async_paging)) {
        QueryEvent* moved = evq_.enqueue(evb_tip);
        if (!moved) return -pte_nomem;
        *moved = *paging;
        paging->type = EventKind::async_vmcs;
        paging->base = base;
        // libipt's union puts the VMCS IP where the paging event kept its non-root bit.
        paging->ip = paging->non_root;
        pos_ += size;
        return 0;
    }
    if (evq_.find(evb_tip, EventKind::async_branch)) {
        QueryEvent* ev = evq_.enqueue(evb_tip);
        if (!ev) return -pte_nomem;
        ev->type = EventKind::async_vmcs;
        ev->base = base;
        pos_ += size;
        return 0;
    }
    QueryEvent* ev = evq_.standalone();
    ev->type = EventKind::vmcs;
    ev->base = base;
    event_ = ev;
    int status = event_time(*ev);
    if (status < 0) return status;
    pos_ += size;
    return 0;
}

int QueryCore::decode_mnt(bool in_header) noexcept {
    Packet packet;
    int size = read(packet, PacketKind::mnt);
    if (size < 0) return size;
    QueryEvent* ev = status_event(in_header);
    if (!ev) return -pte_nomem;
    ev->type = EventKind::mnt;
    ev->payload = packet.payload.mnt;
    if (!in_header) {
        int status = event_time(*ev);
        if (status < 0) return status;
    }
    pos_ += size;
    return 0;
}

int QueryCore::decode_exstop() noexcept {
    Packet packet;
    int size = read(packet, PacketKind::exstop);
    if (size < 0) return size;
    if (master_) {
        // libipt master: the MWAITs before it bind where it binds (its FUP, else here), then
        // the EXSTOP, then the PWREs before it.
        const bool ip = packet.payload.exstop_ip;
        int status = move_events(evb_exstop, ip ? evb_fup : evb_now, ip);
        if (status < 0) return status;
        QueryEvent* ev = evq_.enqueue(ip ? evb_fup : evb_now);
        if (!ev) return -pte_nomem;
        ev->type = EventKind::exstop;
        ev->ip_suppressed = !ip;
        if (!ip) {
            status = move_events(evb_pwre, evb_now, false);
            if (status < 0) return status;
        }
        pos_ += size;
        return 0;
    }
    QueryEvent* ev = fup_or_standalone(packet.payload.exstop_ip);
    if (!ev) return -pte_internal;
    ev->type = EventKind::exstop;
    pos_ += size;
    return 0;
}

int QueryCore::decode_mwait() noexcept {
    Packet packet;
    int size = read(packet, PacketKind::mwait);
    if (size < 0) return size;
    QueryEvent* ev = evq_.enqueue(master_ ? evb_exstop : evb_fup);
    if (!ev) return -pte_internal;
    ev->type = EventKind::mwait;
    ev->hints = packet.payload.mwait.hints;
    ev->ext = packet.payload.mwait.ext;
    pos_ += size;
    return 0;
}

int QueryCore::decode_pwre() noexcept {
    Packet packet;
    int size = read(packet, PacketKind::pwre);
    if (size < 0) return size;
    // libipt master: after the EXSTOP that follows.
    QueryEvent* ev = master_ ? evq_.enqueue(evb_pwre) : evq_.standalone();
    if (!ev) return -pte_nomem;
    ev->type = EventKind::pwre;
    ev->state = packet.payload.pwre.state;
    ev->sub_state = packet.payload.pwre.sub_state;
    ev->hw = packet.payload.pwre.hw;
    if (!master_) event_ = ev;
    pos_ += size;
    return 0;
}

int QueryCore::decode_pwrx() noexcept {
    Packet packet;
    int size = read(packet, PacketKind::pwrx);
    if (size < 0) return size;
    int status = flush_power_events();
    if (status < 0) return status;
    QueryEvent* ev = evq_.standalone();
    ev->type = EventKind::pwrx;
    ev->last = packet.payload.pwrx.last;
    ev->deepest = packet.payload.pwrx.deepest;
    ev->interrupt = packet.payload.pwrx.interrupt;
    ev->store = packet.payload.pwrx.store;
    ev->autonomous = packet.payload.pwrx.autonomous;
    event_ = ev;
    pos_ += size;
    return 0;
}

int QueryCore::decode_ptw() noexcept {
    Packet packet;
    int size = read(packet, PacketKind::ptw);
    if (size < 0) return size;
    int pls = ptw_size(packet.payload.ptw.plc);
    if (pls < 0) return pls;
    QueryEvent* ev = fup_or_standalone(packet.payload.ptw.ip);
    if (!ev) return -pte_internal;
    ev->type = EventKind::ptwrite;
    ev->size = static_cast<uint8_t>(pls);
    ev->payload = packet.payload.ptw.payload;
    pos_ += size;
    return 0;
}

const char* event_kind_name(EventKind kind) noexcept {
    static constexpr const char* kNames[] = {
        "enabled",      "disabled",   "async_disabled", "async_branch", "paging",
        "async_paging", "overflow",   "exec_mode",      "tsx",          "stop",
        "vmcs",         "async_vmcs", "exstop",         "mwait",        "pwre",
        "pwrx",         "ptwrite",    "tick",           "cbr",          "mnt",
        "trig",         "interrupt",  "iret",           "smi",          "rsm",
        "sipi",         "init",       "vmentry",        "vmexit",       "shutdown",
        "uintr",        "uiret",      "swintr",         "syscall",      "ignore",
        "iflags"};
    auto i = static_cast<size_t>(kind);
    return i < sizeof kNames / sizeof kNames[0] ? kNames[i] : "unknown";
}

}  // namespace ringscope::ipt
