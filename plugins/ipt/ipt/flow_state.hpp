// What decides an instruction flow decoder's output from a point on (ipt flow -j): a copy of the
// InsnDecoder's and its query decoder's state without the block cache (a cache: the same runs
// whichever decoder built them) and without fields that are dead at that point (the event or
// instruction kept for later when nothing is kept, the query decoder's last published event, the
// sync bookkeeping of backward sync), so that two decoders that will decode alike compare equal.
#pragma once

#include <cstdint>
#include <vector>

#include "ipt/config.hpp"
#include "ipt/insn_decoder.hpp"
#include "ipt/last_ip.hpp"
#include "ipt/query_event.hpp"
#include "ipt/timing.hpp"

namespace ringscope::ipt {

// Which parts of the state are compared; each can be left out only where nothing reads it.
struct FlowCompare {
    // The time (when the output shows it).
    bool time = true;
    // The time calibration: only CYC packets read it (and it keeps the first MTC's CTC until one
    // comes), so a stream without them can leave it out.
    bool tcal = true;
};

struct FlowState {
    static FlowState of(const InsnDecoder& d, FlowCompare compare = {});

    // Whether a decoder in state fresh (started at a PSB) decodes from here on as one in this state
    // does until it pops a return its stack does not have: all equal, the return stack as far as
    // fresh's reaches (all of it when fresh's bottom is known).
    bool continued_by(const FlowState& fresh) const;

    // The position: where the next packet is read and the next instruction.
    uint64_t offset = 0, ip = 0;

    struct Parts {
        // QueryCore
        bool at_sync = false;  // the next sync forward starts past the current PSB
        bool have_next = false;
        uint8_t next = 0;
        LastIp last_ip;
        TimeState time, last_time;
        TimeCal tcal;
        std::vector<QueryEvent> events[evb_max];  // pending, per binding
        bool core_enabled = false, consume_packet = false;
        uint8_t run_size = 0, run_bits = 0;
        std::vector<uint64_t> run;  // the TNT run's packets: where each ends, bits before it
        // QueryDecoder's front: the bits left, the time and status it answers
        uint64_t tnt = 0, index = 0, tsc = 0;
        bool have_tsc = false;
        int empty_status = 0;
        // InsnDecoder
        uint8_t mode = 0;
        int status = 0;
        bool enabled = false, speculative = false, process_event = false, process_insn = false;
        bool bound_paging = false, bound_vmcs = false, bound_ptwrite = false, bound_return = false;
        bool resyncing = false, disable_first = false;
        int deferred = 0, query_deferred = 0;
        uint32_t since_anchor = 0;
        bool anchor_event = false;
        // QueryCore's last MODE.EXEC (libipt master's flow: an event only when it changes)
        bool mode_exec_valid = false, iflag = false, fup_taken = false;
        uint8_t exec_mode = 0;
        QueryEvent event;
        Insn insn;
        DecodedInsn iext;

        bool operator==(const Parts&) const = default;
    } parts;
    std::vector<uint64_t> retstack;  // from the top down
    bool retstack_open = false;      // its bottom unknown (RetStack::open)
};

}  // namespace ringscope::ipt
