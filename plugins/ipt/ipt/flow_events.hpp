// The instruction flow of an Intel PT stream as events of system "ipt" (`report FILE.pt -O
// ipt:elf=PROG`), as perf's intel_pt synthesizes branch samples (`perf script --itrace=cr` or
// `--itrace=b`): ipt:call, ipt:return, ipt:branch (a taken jump, with flow=branches) and
// ipt:error, from the same decoding and call stack as `ipt calls`. Payload layout (bytes):
//   call, return, branch: offset u64 @0 (where the decoder was in the trace), ip u64 @8 (the
//     branch instruction), target u64 @16 (where it went), depth u32 @24 (the call depth, as
//     `ipt calls` indents), symbol __data_loc char[] @28 (call, branch: the function of target;
//     return: the function returned from), branch's kind __data_loc char[] @32 (jmp, jcc, far jmp)
//   error: offset u64 @0, error __data_loc char[] @8 (libipt's error text)
// Timestamps are the TSC the decoder had at the end of the instructions before the branch (0
// before the first TSC), as `ipt calls --time` prints them.
#pragma once

#include <memory>
#include <span>
#include <string>

#include <ringscope/decoder.hpp>
#include <ringscope/resolver.hpp>

#include "ipt/trace_file.hpp"

namespace ringscope::ipt {

// -O ipt:NAME=VALUE as given (empty when not): elf and raw take comma-separated lists of ptxed's
// `FILE[:BASE]` and `FILE[:OFF[-END]]:ADDR`, kallsyms a file in /proc/kallsyms' format or a
// trace.dat, flow "calls", "branches" or "packets" (the packet events; the default without code).
struct FlowEventOptions {
    std::string elf, raw, kallsyms, flow;

    // Whether the stream's events are the flow's (else its packets).
    bool wanted() const { return flow == "calls" || flow == "branches" || (flow.empty() && has_code()); }
    bool has_code() const { return !elf.empty() || !raw.empty(); }
};

// The flow events of bytes (owned, or mapped by the caller); an error names the option or the
// file that does not load.
Expected<std::unique_ptr<EventStream>> open_flow_events(TraceBytes owned, std::span<const uint8_t> bytes,
                                                        std::string path, const ResolverService& resolvers,
                                                        const FlowEventOptions& o);

}  // namespace ringscope::ipt
