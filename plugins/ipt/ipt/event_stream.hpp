// The "ipt" input format: a Decoder whose EventStream turns the packets of a raw Intel PT stream
// into events of system "ipt", with fields laid out in a payload and the estimated TSC as time.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string_view>

#include <ringscope/decoder.hpp>

#include "ipt/flow_events.hpp"

namespace ringscope::ipt {

// Payload layout: every event starts with `offset` (u64, the packet's byte offset in the trace).
// The other fields, by event name (offsets in bytes):
//   tnt: bits u64 @8 (oldest branch highest), count u8 @16
//   tip, tip_pge, tip_pgd, fup: ip u64 @8 (the full IP; 0 when suppressed), ipc u8 @16,
//     suppressed u8 @17, symbol __data_loc char[] @20 (resolved in the "kernel" domain)
//   mode: leaf u8 @8 (0 exec, 1 tsx), csl @9, csd @10, iflag @11, intx @12, abrt @13, exec_mode @14
//   pip: cr3 u64 @8, nr u8 @16         vmcs: base u64 @8          tsc: tsc u64 @8
//   mtc: ctc u8 @8                     cyc: cycles u64 @8         cbr: ratio u8 @8
//   ptw: payload u64 @8, size u8 @16, ip u8 @17
//   pwre: state u8 @8, sub_state @9, hw @10
//   pwrx: last u8 @8, deepest @9, interrupt @10, store @11, autonomous @12
//   mwait: hints u32 @8, ext u32 @12   exstop: ip u8 @8           psb, ovf, stop: offset only
// Timestamps are the estimated TSC (TSC, TMA, MTC; 0 before the first TSC). After a packet that
// does not decode, decoding resumes at the next PSB and the next event has missed_before() == -1.
// When the options (read at each open) give the code, the events are the instruction flow's
// instead (flow_events.hpp).
class IptDecoder : public Decoder {
  public:
    IptDecoder() = default;
    explicit IptDecoder(std::function<FlowEventOptions()> options) : options_(std::move(options)) {}
    std::string_view format_name() const override { return "ipt"; }
    std::string_view description() const override {
        return "raw Intel Processor Trace stream (perf aux, .pt)";
    }
    int probe(std::span<const uint8_t> head) const override;
    Expected<std::unique_ptr<EventStream>> open(const InputSource& in, ResolverService& resolvers) override;

  private:
    std::function<FlowEventOptions()> options_;
};

// The probe on its own: 100 for a PSB+ header at offset 0, 80 for one later in head, 40 for a PSB
// whose header head cuts, 0 otherwise.
int probe_ipt(std::span<const uint8_t> head) noexcept;

}  // namespace ringscope::ipt
