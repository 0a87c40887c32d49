// The packets of a raw Intel PT stream as events of system "ipt": one packet at a time, with the
// state the events depend on (the last IP, the time estimate, lost packets) kept apart from the
// decoder so that parts of a stream can be decoded on threads and joined (event_parts.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <ringscope/error.hpp>
#include <ringscope/resolver.hpp>

#include "ipt/byte_buffer.hpp"
#include "ipt/config.hpp"
#include "ipt/last_ip.hpp"
#include "ipt/packet_decoder.hpp"
#include "ipt/timing.hpp"

namespace ringscope::ipt {

// The event types, in the order of their ids (1, 2, ...).
enum TypeIndex : uint32_t {
    t_psb,
    t_tnt,
    t_tip,
    t_tip_pge,
    t_tip_pgd,
    t_fup,
    t_mode,
    t_pip,
    t_vmcs,
    t_tsc,
    t_mtc,
    t_cyc,
    t_cbr,
    t_ovf,
    t_ptw,
    t_pwre,
    t_pwrx,
    t_mwait,
    t_exstop,
    t_stop,
    t_count,
};

struct EventState {
    LastIp last_ip;
    TimeState time;
    int64_t missed = 0;  // the next event's missed_before()
    bool done = false;
    Status status;
    // Set once the state no longer depends on what came before the decoder's starting point: a
    // TSC sets every time field an event reads (ctc_cyc, read only by CYC updates, and cbr are
    // never read here), a full or sext-48 IP and OVF set the last IP, a resync resets both.
    bool time_known = false, ip_known = false;

    bool converged() const noexcept { return time_known && ip_known; }
};

// An event: its payload is written into *bytes from base on, to the end (what lies before base is
// the caller's: report -j keeps a part's events in one buffer).
struct BuiltEvent {
    TypeIndex type = t_psb;
    uint64_t ts = 0;
    int64_t missed = 0;
    ByteBuffer* bytes = nullptr;
    size_t base = 0;

    std::span<const uint8_t> payload() const noexcept { return {bytes->data() + base, bytes->size() - base}; }
};

class EventBuilder {
  public:
    EventBuilder(const Config& config, const ResolverService& resolvers, std::string source)
        : config_(config), resolvers_(resolvers), source_(std::move(source)) {}

    // Synchronizes onto the next PSB (packets before it are lost); false when there is none
    // (state.done, with state.status set for an error other than the end).
    bool resync(PacketDecoder& decoder, EventState& state) const;
    // Decodes packets until one makes an event (true), or until the next packet would start at or
    // after stop (false), or the stream ends (false, state.done). A packet that does not decode
    // makes decoding resume at the next PSB.
    bool next(PacketDecoder& decoder, EventState& state, BuiltEvent& out, const uint8_t* stop) const;

  private:
    void put_ip(BuiltEvent& out, EventState& state, uint64_t offset, const PacketIp& ip) const;
    // The event of packet pk at offset into out: its type, or -1 (no event) when it makes none.
    int put_flow(BuiltEvent& out, EventState& state, uint64_t offset, const Packet& pk) const;
    int put_timing(BuiltEvent& out, EventState& state, uint64_t offset, const Packet& pk) const;
    int put_power(BuiltEvent& out, uint64_t offset, const Packet& pk) const;

    Config config_;
    const ResolverService& resolvers_;
    std::string source_;
};

}  // namespace ringscope::ipt
