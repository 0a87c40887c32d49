// ipt flow's decoding loop as flow.cpp runs it, for the parts of ipt flow -j (flow_parallel.cpp):
// the options, the counts, and a hook called at each step of the loop.
#pragma once

#include <cstdint>
#include <cstdio>

#include "ipt/config.hpp"
#include "ipt/insn_decoder.hpp"
#include "ipt/pages_behind.hpp"

namespace ringscope::ipt {

class Image;

struct FlowOptions {
    Config config;
    AddrFilter filter;
    bool block = true;  // ptxed's default decoder
    bool no_inst = false, att = false, check = false, quiet = false, raw_insn = false;
    bool event_ip = false, event_time = false, event_tick = false;
    bool resync = false;  // --resync-on-error
    bool keep_tcal_insn = false, keep_tcal_block = false;
    bool show_blocks = false, end_on_call = false, end_on_jump = false;
    bool stats = false;
    unsigned stat_flags = 0;  // 1 insn, 2 blocks; none: all
    bool bad_cpu = false;
    bool stat_jobs = false;   // --stat:jobs: FlowParallelCount on stderr
    unsigned jobs = 1;        // -j
    uint64_t part_bytes = 0;  // -j's parts (--part-bytes); 0: the default
    // Direct branches take no trace: code that loops on them would be decoded forever (ptxed does).
    // This many instructions without a byte of trace read ends the stretch with an error.
    uint64_t max_insn_without_trace = uint64_t{1} << 22;
    std::FILE* out = nullptr;
};

struct FlowStats {
    uint64_t insn = 0, blocks = 0;
};

// The loop's own state at a step, beside the decoder's.
struct FlowLoopState {
    Insn insn;  // the last instruction
    bool block_open = false;
    uint64_t last_offset = ~uint64_t{0}, same_offset = 0;  // instructions without trace
    uint64_t sync = 0;                                     // where the last sync error was
    uint64_t resynced_at = ~uint64_t{0};
    // Steps whose instructions came from the decoder: those write insn before anything reads it.
    uint64_t decoded_steps = 0;

    bool operator==(const FlowLoopState&) const = default;
};

class FlowHook {
  public:
    enum Step { go, stop, suspend };
    virtual ~FlowHook() = default;
    // At each step (events printed, the next instructions not taken yet): go on, stop the loop,
    // or suspend it (FlowRun::resume asks again at the same step).
    virtual Step at_step(InsnDecoder& d, const FlowLoopState& loop, uint64_t offset) = 0;
};

// Decodes and prints the flow (ptxed's loop) to o.out, resumably: run() returns false where it
// suspends (the hook said so, or, with open_stack, the decoder needs return stack entries from
// before its first sync: kNeedsStack), resume() goes on from there.
class FlowRun {
  public:
    FlowRun(InsnDecoder& d, const Image& image, const FlowOptions& o, FlowStats& stats,
            FlowHook* hook = nullptr)
        : d_(d), image_(image), o_(o), stats_(stats), hook_(hook) {}

    // From the PSB at start (a sync there, the return stack then opened when open_stack), or from
    // the first PSB: true when done.
    bool run(const uint64_t* start = nullptr, bool open_stack = false);
    bool resume();
    // Suspended because the decoder needs return stack entries (not by the hook).
    bool needs_stack() const { return suspended_ == Suspended::stack; }
    const FlowLoopState& loop_state() const { return loop_; }
    InsnDecoder& decoder() { return d_; }

  private:
    enum class Suspended { no, step, stack };
    // From status: a sync's, the one to go on with at a suspended step, or resume()'s.
    enum class Enter { sync, step, resumed };
    bool go(int status, Enter enter);

    InsnDecoder& d_;
    const Image& image_;
    const FlowOptions& o_;
    FlowStats& stats_;
    FlowHook* hook_;
    FlowLoopState loop_;
    Suspended suspended_ = Suspended::no;
    int status_ = 0;  // the status to go on with at a suspended step
};

// Gives back the pages of a mapped trace behind the decode, and stops it where the file shrank.
class PagesHook final : public FlowHook {
  public:
    explicit PagesHook(PagesBehind& pages) : pages_(pages) {}
    Step at_step(InsnDecoder&, const FlowLoopState&, uint64_t offset) override {
        return pages_.at(offset) ? go : stop;
    }

  private:
    PagesBehind& pages_;
};

// The flow as FlowRun decodes it, to the end.
void flow_decode(InsnDecoder& d, const Image& image, const FlowOptions& o, FlowStats& stats);

// What ipt flow -j did: parts cut, parts joined to the one before, parts given the return stack
// entries from before their PSB (handed on), and the part from whose join on it decoded
// sequentially (parts when none).
// Also the steps of the decode loop all parts took (those past a cut twice), those taken on the
// calling thread, the thread CPU seconds of the calling thread and of the parts on workers, and
// how often the calling thread and the workers slept waiting for each other (OrderedPipeline).
struct FlowParallelCount {
    size_t parts = 0, joined = 0, handed_on = 0, sequential_from = 0;
    uint64_t steps = 0, caller_steps = 0;
    double caller_cpu = 0, worker_cpu = 0;
    size_t caller_slept = 0, workers_slept = 0;
};

// ipt flow -j: the same output from o.jobs threads (flow_parallel.cpp).
// With pages (over the mapped trace), the pages behind the part whose output is taken are given
// back, and decoding stops where the file shrank (pages->failed()).
FlowParallelCount flow_decode_parallel(const Image& image, const FlowOptions& o, FlowStats& stats,
                                       PagesBehind* pages = nullptr);

}  // namespace ringscope::ipt
