#include "ipt/flow.hpp"

#include <cerrno>
#include <cinttypes>
#include <cstdlib>
#include <memory>

#include <Zydis/Zydis.h>

#include "ipt/errors.hpp"
#include "ipt/flow_driver.hpp"
#include "ipt/flow_options.hpp"
#include "ipt/hex16.hpp"
#include "ipt/image.hpp"
#include "ipt/insn_decoder.hpp"
#include "ipt/pages_behind.hpp"
#include "ipt/trace_file.hpp"

namespace ringscope::ipt {
namespace {

// decode_segment's answers for code that runs on without reading trace, for a hook that stopped
// it and for one that suspended it (no libipt error codes).
constexpr int kNoTraceProgress = -0x7ffe;
constexpr int kHookStopped = -0x7ffd;
constexpr int kHookSuspended = -0x7ffc;

using Stats = FlowStats;

const char* mode_name(uint8_t mode) {
    switch (mode) {
        case em_16bit:
            return "16-bit";
        case em_32bit:
            return "32-bit";
        case em_64bit:
            return "64-bit";
        default:
            return "<unknown>";
    }
}

// ptxed's event text, without the brackets.
void print_event_text(std::FILE* out, const QueryEvent& ev, const FlowOptions& o) {
    const bool ip = o.event_ip && !ev.ip_suppressed;
    switch (ev.type) {
        case EventKind::enabled:
            std::fputs(ev.resumed ? "resumed" : "enabled", out);
            if (o.event_ip) std::fprintf(out, ", ip: %016" PRIx64, ev.ip);
            return;
        case EventKind::disabled:
            std::fputs("disabled", out);
            break;
        case EventKind::async_disabled:
            std::fputs("disabled", out);
            if (o.event_ip) std::fprintf(out, ", at: %016" PRIx64, ev.from);
            break;
        case EventKind::async_branch:
            std::fputs("interrupt", out);
            if (o.event_ip) std::fprintf(out, ", from: %016" PRIx64, ev.from);
            if (ip) std::fprintf(out, ", to: %016" PRIx64, ev.ip);
            return;
        case EventKind::paging:
        case EventKind::async_paging:
            std::fprintf(out, "paging, cr3: %016" PRIx64 "%s", ev.cr3, ev.non_root ? ", nr" : "");
            if (ev.type == EventKind::async_paging && o.event_ip)
                std::fprintf(out, ", ip: %016" PRIx64, ev.ip);
            return;
        case EventKind::overflow:
            std::fputs("overflow", out);
            break;
        case EventKind::exec_mode:
            std::fprintf(out, "exec mode: %s", mode_name(ev.exec_mode));
            break;
        case EventKind::tsx:
            std::fputs(ev.aborted ? "aborted" : ev.speculative ? "begin transaction" : "committed", out);
            break;
        case EventKind::stop:
            std::fputs("stopped", out);
            return;
        case EventKind::vmcs:
        case EventKind::async_vmcs:
            std::fprintf(out, "vmcs, base: %016" PRIx64, ev.base);
            if (ev.type == EventKind::async_vmcs && o.event_ip) std::fprintf(out, ", ip: %016" PRIx64, ev.ip);
            return;
        case EventKind::exstop:
            std::fputs("exstop", out);
            break;
        case EventKind::mwait:
            std::fprintf(out, "mwait %" PRIx32 " %" PRIx32, ev.hints, ev.ext);
            break;
        case EventKind::pwre:
            std::fprintf(out, "pwre c%u.%u%s", (ev.state + 1u) & 0xf, (ev.sub_state + 1u) & 0xf,
                         ev.hw ? " hw" : "");
            return;
        case EventKind::pwrx:
            std::fprintf(out, "pwrx %s%s%sc%u (c%u)", ev.interrupt ? "int: " : "", ev.store ? "st: " : "",
                         ev.autonomous ? "hw: " : "", (ev.last + 1u) & 0xf, (ev.deepest + 1u) & 0xf);
            return;
        case EventKind::ptwrite:
            std::fprintf(out, "ptwrite: %" PRIx64, ev.payload);
            break;
        case EventKind::tick:
            std::fputs("tick", out);
            break;
        case EventKind::cbr:
            std::fprintf(out, "cbr: %x", ev.ratio);
            return;
        case EventKind::mnt:
            std::fprintf(out, "mnt: %" PRIx64, ev.payload);
            return;
        case EventKind::trig:
            std::fprintf(out, "trig %02x%s", ev.trbv, ev.mult ? ", mult" : "");
            break;
        case EventKind::interrupt:
            std::fprintf(out, "interrupt %u", ev.vector);
            if (ev.has_cr2) std::fprintf(out, ", cr2: %016" PRIx64, ev.cr2);
            break;
        case EventKind::vmexit:
            std::fputs("vmexit", out);
            if (ev.has_vector) std::fprintf(out, ", intr: %u", ev.vector);
            if (ev.has_vmxr) std::fprintf(out, ", vmxr: %016" PRIx64, ev.vmxr);
            if (ev.has_vmxq) std::fprintf(out, ", vmxq: %016" PRIx64, ev.vmxq);
            break;
        case EventKind::sipi:
            std::fprintf(out, "sipi: %x", ev.vector);
            break;
        case EventKind::uintr:
        case EventKind::swintr:
            std::fprintf(out, "%s %u", event_kind_name(ev.type), ev.vector);
            break;
        case EventKind::iflags:
            std::fprintf(out, "interrupts %s", ev.iflag ? "enabled" : "disabled");
            break;
        case EventKind::iret:
        case EventKind::smi:
        case EventKind::rsm:
        case EventKind::init:
        case EventKind::vmentry:
        case EventKind::shutdown:
        case EventKind::uiret:
        case EventKind::syscall:
        case EventKind::ignore:
            std::fputs(event_kind_name(ev.type), out);
            break;
    }
    if (ip) std::fprintf(out, ", ip: %016" PRIx64, ev.ip);
}

void print_event(std::FILE* out, const QueryEvent& ev, const FlowOptions& o) {
    std::fputc('[', out);
    if (o.event_time && ev.has_tsc) std::fprintf(out, "%016" PRIx64 "  ", ev.tsc);
    print_event_text(out, ev, o);
    std::fputs("]\n", out);
}

void print_insn(std::FILE* out, const Insn& insn, const FlowOptions& o) {
    if (o.no_inst && !o.raw_insn) {
        // The common case by hand: printf's parsing was most of --no-inst's time.
        char line[24];
        char* p = line;
        if (insn.speculative) *p++ = '?', *p++ = ' ';
        p = put_hex16(p, insn.ip);
        *p++ = '\n';
        fwrite_unlocked(line, 1, static_cast<size_t>(p - line), out);
        return;
    }
    std::fprintf(out, "%s%016" PRIx64, insn.speculative ? "? " : "", insn.ip);
    if (o.raw_insn) {
        for (int i = 0; i < 15; ++i) {
            if (i < insn.size)
                std::fprintf(out, " %02x", insn.raw[i]);
            else
                std::fputs("   ", out);
        }
    }
    if (!o.no_inst) {
        ZydisDisassembledInstruction dis;
        ZydisMachineMode mode = insn.mode == em_16bit   ? ZYDIS_MACHINE_MODE_LEGACY_16
                                : insn.mode == em_32bit ? ZYDIS_MACHINE_MODE_LEGACY_32
                                                        : ZYDIS_MACHINE_MODE_LONG_64;
        const ZyanStatus status = o.att ? ZydisDisassembleATT(mode, insn.ip, insn.raw, insn.size, &dis)
                                        : ZydisDisassembleIntel(mode, insn.ip, insn.raw, insn.size, &dis);
        if (ZYAN_SUCCESS(status))
            std::fprintf(out, "  %s", dis.text);
        else
            std::fputs(" [decode error]", out);
    }
    std::fputc('\n', out);
}

// --check: the instruction decoded a second way (by category); a line where the two disagree.
void check_insn(std::FILE* out, const Insn& insn, uint64_t offset) {
    if (insn.isid <= 0)
        std::fprintf(out, "[%" PRIx64 ", %" PRIx64 ": check error: bad isid]\n", offset, insn.ip);
    InsnClass other = class_by_category(insn.raw, insn.size, insn.mode);
    if (other == InsnClass::error) {
        std::fprintf(out, "[%" PRIx64 ", %" PRIx64 ": check error: invalid instruction]\n", offset, insn.ip);
    } else if (other != insn.iclass) {
        std::fprintf(out, "[%" PRIx64 ", %" PRIx64 ": iclass error: iclass: %s, check iclass: %s]\n", offset,
                     insn.ip, insn_class_name(insn.iclass), insn_class_name(other));
    }
}

void diagnose(std::FILE* out, const InsnDecoder& d, uint64_t ip, const char* kind, int status,
              bool sync = false) {
    uint64_t offset = 0;
    if ((sync ? d.get_offset(offset) : d.error_offset(offset)) < 0)
        std::fprintf(out, "[?, %" PRIx64 ": %s: %s]\n", ip, kind, pt_error_string(status));
    else
        std::fprintf(out, "[%" PRIx64 ", %" PRIx64 ": %s: %s]\n", offset, ip, kind, pt_error_string(status));
}

// Whether the block decoder ends a block after this instruction.
bool ends_block(const Insn& insn, const FlowOptions& o, bool direct) {
    switch (insn.iclass) {
        case InsnClass::other:
        case InsnClass::ptwrite:
            return false;
        case InsnClass::call:
            return !direct || o.end_on_call;
        case InsnClass::jump:
            return !direct || o.end_on_jump;
        default:
            return true;
    }
}

int drain_events(std::FILE* out, InsnDecoder& d, int status, const FlowOptions& o, bool& block_open) {
    while (status & pts_event_pending) {
        QueryEvent ev;
        status = d.event(ev);
        // kNeedsStack: the event is taken, the instruction it was bound to not yet.
        if (status < 0 && status != kNeedsStack) return status;
        block_open = false;
        if (!o.quiet && !ev.status_update) print_event(out, ev, o);
        if (status < 0) return status;
    }
    return status;
}

// The instructions of a path in order: f(ip, size, last of its run, the run's last class, direct).
template <class F>
void each_insn(const InsnDecoder& d, const InsnPath& p, F&& f) {
    auto run = [&](uint64_t ip, uint32_t n, const uint8_t* sizes, InsnClass end_class, bool end_direct) {
        for (uint32_t k = 0; k < n; ++k) {
            f(ip, sizes[k], k + 1 == n, end_class, end_direct);
            ip += sizes[k];
        }
    };
    if (!p.nruns) {
        run(p.single.ip, p.single.ninsn, p.single.sizes, p.single.end_class, p.single.end_direct);
        return;
    }
    const BlockCache& cache = d.block_cache();
    for (uint32_t r = 0; r < p.nruns; ++r) {
        const CachedRun& c = cache.at(p.runs[r]);
        run(c.ip, c.ninsn, cache.sizes(c), c.last.iclass, c.last.is_direct);
    }
}

struct Segment {
    InsnDecoder& d;
    const Image& image;
    const FlowOptions& o;
    Stats& stats;
    FlowLoopState& loop;  // loop.insn: the last instruction, for the error's report
    FlowHook* hook = nullptr;
    int suspended_status = 0;  // the status at the step the hook suspended
};

// --quiet without --check: the path counted as take_path would count it (only a run's last
// instruction may end a block), from its counts (a run at a time with --block:end-on-*).
// loop.insn: the path's last instruction, bytes unread.
void count_path(Segment& s, const InsnPath& p) {
    auto run = [&](uint64_t ip, uint64_t end_ip, uint32_t ninsn, uint8_t last_size, InsnClass end_class,
                   bool end_direct) {
        if (!s.loop.block_open) ++s.stats.blocks;
        s.stats.insn += ninsn;
        Insn& insn = s.loop.insn;
        insn.ip = ninsn ? end_ip : ip;
        insn.size = last_size;
        insn.iclass = end_class;
        s.loop.block_open = !ends_block(insn, s.o, end_direct);
    };
    Insn& insn = s.loop.insn;
    if (!p.nruns) {
        const InsnRun& r = p.single;
        run(r.ip, r.end_ip, r.ninsn, r.sizes[r.ninsn - 1], r.end_class, r.end_direct);
        insn.mode = r.mode;
        insn.speculative = r.speculative;
        return;
    }
    const BlockCache& cache = s.d.block_cache();
    const uint32_t last = p.nruns - 1;
    const CachedRun& c = cache.at(p.runs[last]);
    if (!s.o.end_on_call && !s.o.end_on_jump) {
        // Without --block:end-on-*, no loop over the runs: a block starts at the first when none
        // is open and after each one that ends a block but the last (p.ends counts them all).
        insn.iclass = c.last.iclass;
        const bool last_ends = ends_block(insn, s.o, c.last.is_direct);
        s.stats.blocks += !s.loop.block_open + p.ends - last_ends;
        s.stats.insn += p.ninsn;
        s.loop.block_open = !last_ends;
        insn.ip = c.end_ip;
        insn.size = c.last.size;
    } else {
        for (uint32_t k = 0; k < last; ++k) {
            const CachedRun& r = cache.at(p.runs[k]);
            run(r.ip, r.end_ip, r.ninsn, r.last.size, r.last.iclass, r.last.is_direct);
        }
        run(c.ip, c.end_ip, c.ninsn, c.last.size, c.last.iclass, c.last.is_direct);
    }
    insn.mode = p.mode;
    insn.speculative = p.speculative;
}

// Counts (and unless --quiet prints) the instructions of a path, as ptxed does one at a time.
void take_path(Segment& s, const InsnPath& p, uint64_t offset) {
    if (s.o.quiet && !s.o.check) return count_path(s, p);
    const bool show = !s.o.quiet || s.o.check;
    // The bytes and each instruction's own class: for the disassembly, --raw-insn and --check.
    const bool bytes = !s.o.no_inst || s.o.raw_insn || s.o.check;
    const ExecMode mode = p.nruns ? p.mode : p.single.mode;
    const bool speculative = p.nruns ? p.speculative : p.single.speculative;
    each_insn(s.d, p, [&](uint64_t ip, uint8_t size, bool last, InsnClass end_class, bool end_direct) {
        if (!s.loop.block_open) {
            ++s.stats.blocks;
            if (s.o.block && s.o.show_blocks && !s.o.quiet) std::fputs("[block]\n", s.o.out);
            s.loop.block_open = true;
        }
        ++s.stats.insn;
        Insn& insn = s.loop.insn;
        insn.ip = ip;
        insn.size = size;
        insn.mode = mode;
        insn.speculative = speculative;
        insn.iclass = last ? end_class : InsnClass::other;
        if (show) {
            if (bytes) {
                s.image.read(ip, insn.raw, sizeof insn.raw, &insn.isid);
                DecodedInsn iext;
                // A run keeps only its last instruction's class; the others are plain or PTWRITE.
                if (!last && decode_insn(iext, insn.raw, size, mode) == 0) insn.iclass = iext.iclass;
            }
            if (!s.o.quiet) print_insn(s.o.out, insn, s.o);
            if (s.o.check) check_insn(s.o.out, insn, offset);
        }
        const bool direct = last ? end_direct : false;
        if (ends_block(insn, s.o, direct)) s.loop.block_open = false;
    });
}

// One synchronized stretch: instructions and events until an error or the end; resumed, on
// from a suspended step or a decoder's resume().
int decode_segment(Segment& s, int status, bool resumed) {
    std::FILE* out = s.o.out;
    uint64_t& last_offset = s.loop.last_offset;
    uint64_t& same_offset = s.loop.same_offset;
    if (!resumed) {
        last_offset = ~uint64_t{0};
        same_offset = 0;
    }
    for (;;) {
        status = drain_events(out, s.d, status, s.o, s.loop.block_open);
        if (status < 0) return status;
        if (status & pts_eos) {
            if (!(status & pts_ip_suppressed) && !s.o.quiet) std::fputs("[end of trace]\n", out);
            return -pte_eos;
        }
        uint64_t offset = 0;
        s.d.get_offset(offset);
        if (s.hook) {
            const FlowHook::Step step = s.hook->at_step(s.d, s.loop, offset);
            if (step == FlowHook::stop) return kHookStopped;
            if (step == FlowHook::suspend) {
                s.suspended_status = status;
                return kHookSuspended;
            }
        }
        if (offset != last_offset) {
            last_offset = offset;
            same_offset = 0;
        } else if (same_offset > s.o.max_insn_without_trace) {
            return kNoTraceProgress;
        }
        InsnPath p;
        Insn one;  // p.single's instruction when it is taken here
        // Near the limit one instruction at a time, so that it stops where ptxed's count would.
        // Tick events come from next() only.
        if (!s.o.event_tick && same_offset + uint64_t{InsnDecoder::kMaxWalk} * BlockCache::kMaxRun <
                                   s.o.max_insn_without_trace) {
            status = s.d.next_path(p);
        } else {
            status = s.d.next(one);
            p.single.ip = one.ip;
            if (one.iclass != InsnClass::error) run_of_insn(p.single, one);
            p.ninsn = p.single.ninsn;
        }
        if (p.ninsn) ++s.loop.decoded_steps;
        if (!p.ninsn) {
            // With tracing disabled next() leaves its instruction as it was: ptxed takes the one
            // before again.
            if ((status != -pte_no_enable && status != -pte_eos) || s.loop.insn.iclass == InsnClass::error) {
                s.loop.insn = Insn{};
                s.loop.insn.ip = p.single.ip;
                return status < 0 ? status : -pte_internal;
            }
            one = s.loop.insn;
            s.image.read(one.ip, one.raw, sizeof one.raw, &one.isid);
            run_of_insn(p.single, one);
            p.ninsn = 1;
        }
        same_offset += p.ninsn;
        take_path(s, p, offset);
        if (status < 0) return status;
    }
}

}  // namespace

bool FlowRun::run(const uint64_t* start, bool open_stack) {
    loop_ = FlowLoopState{};
    suspended_ = Suspended::no;
    const int status = start ? d_.sync_set(*start) : d_.sync_forward();
    if (status >= 0 && open_stack) d_.retstack().open();
    return go(status, Enter::sync);
}

bool FlowRun::resume() {
    const Suspended was = suspended_;
    suspended_ = Suspended::no;
    if (was == Suspended::step) return go(status_, Enter::step);
    return go(d_.resume(), Enter::resumed);
}

bool FlowRun::go(int status, Enter enter) {
    std::FILE* out = o_.out;
    Insn& insn = loop_.insn;
    for (;;) {
        if (enter == Enter::sync) {
            if (status < 0) {
                if (status == -pte_eos) return true;
                diagnose(out, d_, insn.ip, "sync error", status, true);
                // Without progress there will be none: stop (the error is reported twice).
                uint64_t now = 0;
                if (d_.get_offset(now) < 0 || now <= loop_.sync) return true;
                loop_.sync = now;
                insn = Insn{};
                status = d_.sync_forward();
                continue;
            }
            // With --resync-on-error each error goes on from the next IP the trace gives, while
            // that moves the decoder on; else (and when resync fails) from the next PSB.
            loop_.resynced_at = ~uint64_t{0};
        }
        for (;;) {
            Segment segment{d_, image_, o_, stats_, loop_, hook_};
            if (enter == Enter::sync) loop_.block_open = false;
            // A resume() that failed: the error the step would have ended with.
            if (enter != Enter::resumed || status >= 0)
                status = decode_segment(segment, status, enter != Enter::sync);
            enter = Enter::sync;
            if (status == kHookSuspended || status == kNeedsStack) {
                suspended_ = status == kNeedsStack ? Suspended::stack : Suspended::step;
                status_ = segment.suspended_status;
                return false;
            }
            if (status == -pte_eos || status == kHookStopped) return true;
            if (status == kNoTraceProgress) {
                uint64_t offset = 0;
                d_.get_offset(offset);
                std::fprintf(out,
                             "[%" PRIx64 ", %" PRIx64 ": error: %" PRIu64 " instructions without trace]\n",
                             offset, insn.ip, o_.max_insn_without_trace);
                return true;
            }
            diagnose(out, d_, insn.ip, "error", status);
            uint64_t offset = 0;
            if (!o_.resync || d_.get_offset(offset) < 0 || offset == loop_.resynced_at) break;
            loop_.resynced_at = offset;
            status = d_.resync();
            if (status == -pte_eos) return true;
            if (status < 0) {
                diagnose(out, d_, insn.ip, "resync error", status);
                break;
            }
        }
        // On at the next PSB.
        insn = Insn{};
        status = d_.sync_forward();
    }
}

void flow_decode(InsnDecoder& d, const Image& image, const FlowOptions& o, Stats& stats) {
    FlowRun run(d, image, o, stats);
    run.run();
}

int flow_main(const std::vector<std::string>& args, std::FILE* out, std::FILE* err) {
    FlowOptions o;
    FlowInputs in;
    if (int rc = parse_flow_args(args, o, in, out, err); rc >= 0) return rc;
    auto bytes = TraceBytes::map(in.pt, in.pt_offset, in.pt_size);
    if (!bytes) {
        std::fprintf(err, "ringscope ipt flow: %s\n", bytes.error().to_string().c_str());
        return 1;
    }
    o.config.begin = bytes->begin();
    o.config.end = bytes->end();
    // As ptxed: an unknown cpu is reported, and the trace decoded without errata.
    if (o.bad_cpu) std::fprintf(out, "[0, 0: config error: %s]\n", pt_error_string(-pte_bad_cpu));
    o.config.keep_tcal_on_ovf = o.block ? o.keep_tcal_block : o.keep_tcal_insn;
    Stats stats;
    o.out = out;
    // The serial decode and -j's parts give back the pages of a mapped trace behind them.
    PagesBehind pages(*bytes);
    if (o.jobs > 1) {
        const FlowParallelCount c = flow_decode_parallel(in.image, o, stats, &pages);
        if (o.stat_jobs)
            std::fprintf(err,
                         "parts: %zu, joined: %zu, handed on: %zu, sequential from part: %zu, steps: %" PRIu64
                         " (on the caller: %" PRIu64
                         "), cpu s: caller %.3f, workers %.3f, slept: caller %zu, workers %zu\n",
                         c.parts, c.joined, c.handed_on, c.sequential_from, c.steps, c.caller_steps,
                         c.caller_cpu, c.worker_cpu, c.caller_slept, c.workers_slept);
    } else {
        InsnDecoder decoder(o.config, in.image, o.filter);
        decoder.set_tick_events(o.event_tick);
        PagesHook hook(pages);
        FlowRun(decoder, in.image, o, stats, &hook).run();
    }
    if (pages.failed()) {
        std::fflush(out);
        std::fprintf(err, "ringscope ipt flow: %s\n", pages.error().to_string().c_str());
        return 1;
    }
    if (o.stats) {
        const unsigned flags = o.stat_flags ? o.stat_flags : 3u;
        if (flags & 1) std::fprintf(out, "insn: %" PRIu64 ".\n", stats.insn);
        if ((flags & 2) && o.block) std::fprintf(out, "blocks:\t%" PRIu64 ".\n", stats.blocks);
    }
    std::fflush(out);
    return 0;
}

}  // namespace ringscope::ipt
