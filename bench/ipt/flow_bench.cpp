// ipt_flow_bench: the instruction flow (`ipt flow`'s decoder) against libipt 2.0.5's block and
// instruction decoders (bench/reference/flow_libipt.c) on the same stream and code, in the same
// process. The stream is a trace of a made-up program (flow_program.hpp). Ours runs as
// InsnDecoder::next_path (walks over the block cache's runs, each run handed to the loop) and as
// next() (one instruction at a time); every decoder must agree on the instruction count, events,
// errors and a hash of every jump in control's path, or the line says RESULTS DIFFER.
// ours-count is next_path with only the counts taken (InsnPath::ninsn, as `ipt flow --quiet`
// takes a path without a loop over its runs): no hash, its counts are compared. flow-j1 and flow-jN are
// `ipt flow --quiet --stat` (the command's whole decode, -j 1 and -j N) on the same files: their
// CPU time is the process's (all threads), and only their instruction count is compared.
// calls and profile are `ipt calls` and `ipt profile` (--kallsyms) in process, their output hashed
// (calls_rows.hpp), calls-time and profile-time the same with --time; --only one of them runs it
// beside block, flow-j1 and its libipt-based reference (calls-libipt, profile-time-libipt...: a
// child process), whose output must be the same.
//   ipt_flow_bench [--size-kb N] [--seed S] [--functions N] [--cyc 1] [-j N]
//                  [--only ours|ours-count|block|insn|ours-insn|flow-j1|flow-jN|calls|profile|
//                          calls-time|profile-time]
//                  [--write PREFIX]   (PREFIX.pt, PREFIX.bin: the code at 0x400000, PREFIX.kallsyms)
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include <unistd.h>

#include "bench_clock.hpp"
#include "calls_rows.hpp"
#include "flow_libipt.h"
#include "flow_program.hpp"
#include "ipt/errors.hpp"
#include "ipt/flow.hpp"
#include "ipt/image.hpp"
#include "ipt/insn_decoder.hpp"

namespace ri = ringscope::ipt;
namespace rb = ringscope::ipt::bench;

namespace {

struct Result {
    flow_libipt_result r{};
    double seconds = 0, wall = 0;
};

Result median(std::vector<Result> runs) {
    std::sort(runs.begin(), runs.end(),
              [](const Result& a, const Result& b) { return a.seconds < b.seconds; });
    return runs[runs.size() / 2];
}

// How ours() takes the flow: next_path's runs one by one, next_path's counts only, or next().
enum class Way { path, count, insn };

// ptxed's loop over our decoder, reduced as flow_libipt.c reduces libipt's.
flow_libipt_result ours(const ri::Config& config, const ri::Image& image, const flow_libipt_code& code,
                        Way way) {
    flow_libipt_result r{};
    ri::InsnDecoder d(config, image);
    flow_libipt_path path{};
    for (;;) {
        int status = d.sync_forward();
        path.kind = 0;
        if (status < 0) {
            if (status == -ri::pte_eos) break;
            ++r.errors;
            continue;
        }
        for (;;) {
            while (status & ri::pts_event_pending) {
                ri::QueryEvent ev;
                status = d.event(ev);
                if (status < 0) break;
                ++r.events;
            }
            if (status < 0) break;
            if (status & ri::pts_eos) {
                status = -ri::pte_eos;
                break;
            }
            if (way == Way::path) {
                ri::InsnPath p;
                status = d.next_path(p);
                const ri::BlockCache& cache = d.block_cache();
                for (uint32_t k = 0; k < p.nruns; ++k) {
                    const ri::CachedRun& run = cache.at(p.runs[k]);
                    r.hash = flow_libipt_step(&path, &code, r.hash, run.ip, r.insn, run.end_ip);
                    r.insn += run.ninsn;
                }
                if (p.nruns == 0 && p.single.ninsn) {
                    r.hash = flow_libipt_step(&path, &code, r.hash, p.single.ip, r.insn, p.single.end_ip);
                    r.insn += p.single.ninsn;
                }
            } else if (way == Way::count) {
                ri::InsnPath p;
                status = d.next_path(p);
                r.insn += p.ninsn;
            } else {
                ri::Insn insn;
                status = d.next(insn);
                if (insn.iclass != ri::InsnClass::error) {
                    r.hash = flow_libipt_step(&path, &code, r.hash, insn.ip, r.insn, insn.ip);
                    ++r.insn;
                }
            }
            if (status < 0) break;
        }
        if (status == -ri::pte_eos) break;
        ++r.errors;
    }
    return r;
}

bool same(const flow_libipt_result& a, const flow_libipt_result& b) {
    return a.insn == b.insn && a.events == b.events && a.errors == b.errors && a.hash == b.hash;
}

double process_cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// `ipt flow --quiet --stat -j jobs` on the files: the instruction count it prints (only that set),
// the process's CPU time and the wall time.
Result flow_command(const std::string& code_path, const std::string& pt_path, uint64_t address,
                    unsigned jobs) {
    char* text = nullptr;
    size_t size = 0;
    std::FILE* out = open_memstream(&text, &size);
    std::FILE* err = std::fopen("/dev/null", "w");
    if (!out || !err) std::abort();
    char raw[64];
    std::snprintf(raw, sizeof raw, ":0x%" PRIx64, address);
    const std::vector<std::string> args = {"--raw",   code_path + raw, "--pt", pt_path,
                                           "--quiet", "--stat",        "-j",   std::to_string(jobs)};
    Result r;
    const auto w0 = std::chrono::steady_clock::now();
    const double t0 = process_cpu_seconds();
    const int rc = ri::flow_main(args, out, err);
    r.seconds = process_cpu_seconds() - t0;
    r.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
    std::fclose(out);
    std::fclose(err);
    unsigned long long insn = 0;
    const char* stat = text ? std::strstr(text, "insn: ") : nullptr;
    if (rc != 0 || !stat || std::sscanf(stat, "insn: %llu.", &insn) != 1) r.r.errors = 1;
    r.r.insn = insn;
    std::free(text);
    return r;
}

struct Decoder {
    std::string name;
    std::function<Result()> run;
    bool command = false;  // flow-j*: its own clocks, the instruction count only
    bool counts = false;   // ours-count: no hash, the counts only
    bool output = false;   // calls, profile and their references: the output's hash and lines
};

// A calls row as the table's: the stream's instructions, the output's lines as events and its
// hash, a failure as an error.
Result of_calls(const rb::CallsRun& c, uint64_t insn) {
    Result r;
    r.seconds = c.seconds;
    r.wall = c.wall;
    r.r.insn = insn;
    r.r.events = c.lines;
    r.r.hash = c.hash;
    r.r.errors = c.failed;
    return r;
}

// Whether row k agrees with what it is compared with: the first row, or for calls and profile
// their reference when it ran.
bool agrees(const std::vector<Decoder>& decoders, const std::vector<Result>& med, size_t k) {
    const Result& m = med[k];
    const flow_libipt_result& o = med[0].r;
    if (decoders[k].output) {
        for (size_t r = 0; r < decoders.size(); ++r)
            if (decoders[r].output && r != k &&
                (decoders[r].name == decoders[k].name + "-libipt" ||
                 decoders[k].name == decoders[r].name + "-libipt"))
                return same(m.r, med[r].r);
        return !m.r.errors;
    }
    if (decoders[k].command) return m.r.insn == o.insn && !m.r.errors;
    if (decoders[k].counts || decoders[0].counts)
        return m.r.insn == o.insn && m.r.events == o.events && m.r.errors == o.errors;
    return same(m.r, o);
}

// Each decoder's medians, then the ratios: the first decoder's against each, and each flow-j*'s
// and ours-count's against libipt's.
void report(const std::vector<Decoder>& decoders, const std::vector<Result>& med, double mib) {
    for (size_t k = 0; k < decoders.size(); ++k) {
        const Result& m = med[k];
        const bool agree = agrees(decoders, med, k);
        std::printf("%-14s %8.3f s cpu %8.3f s wall  %8.1f MB/s  %8.1f M insn/s  insn %" PRIu64
                    " events %" PRIu64 " errors %" PRIu64 " hash %016" PRIx64 "%s\n",
                    decoders[k].name.c_str(), m.seconds, m.wall, mib / m.seconds,
                    static_cast<double>(m.r.insn) / m.seconds / 1e6, m.r.insn, m.r.events, m.r.errors,
                    m.r.hash, agree ? "" : "  RESULTS DIFFER");
    }
    for (size_t k = 1; k < decoders.size(); ++k)
        std::printf("%s: %.1fx %s (cpu), %.1fx (wall)\n", decoders[0].name.c_str(),
                    med[k].seconds / med[0].seconds, decoders[k].name.c_str(), med[k].wall / med[0].wall);
    // The commands and ours-count against libipt's decoders; calls and profile against flow-j1
    // and their reference too.
    for (size_t f = 0; f < decoders.size(); ++f) {
        if (!decoders[f].command && !decoders[f].counts && !decoders[f].output) continue;
        if (decoders[f].name.ends_with("-libipt")) continue;
        for (size_t k = 0; k < decoders.size(); ++k) {
            if (decoders[k].name != "block" && decoders[k].name != "insn" &&
                !(decoders[f].output &&
                  (decoders[k].name == "flow-j1" || decoders[k].name == decoders[f].name + "-libipt")))
                continue;
            std::printf("%s: %.1fx %s (cpu), %.1fx (wall)\n", decoders[f].name.c_str(),
                        med[k].seconds / med[f].seconds, decoders[k].name.c_str(), med[k].wall / med[f].wall);
        }
    }
}

// The rows of `ipt calls` and `ipt profile`, and with --time (calls-time, profile-time); with
// --only one of them, its reference's too (it takes 30 times as long).
void add_calls_rows(std::vector<Decoder>& decoders, const rb::CallsFiles& files, uint64_t insn,
                    const std::string& only) {
    for (const bool time : {false, true}) {
        for (const bool calls : {true, false}) {
            const std::string name = std::string(calls ? "calls" : "profile") + (time ? "-time" : "");
            decoders.push_back({name, [&files, calls, time, insn] {
                                    return of_calls(rb::calls_command(calls, files, time), insn);
                                }});
            decoders.back().output = true;
#ifdef RINGSCOPE_CALLS_LIBIPT  // built with the tests
            if (only != name) continue;
            decoders.push_back(
                {name + "-libipt", [&files, calls, time, insn] {
                     return of_calls(rb::calls_reference(RINGSCOPE_CALLS_LIBIPT, calls, files, time), insn);
                 }});
            decoders.back().output = true;
#endif
        }
    }
}

// --only: that row (flow-jN: the -j N command); calls or profile beside block, flow-j1 and its
// reference.
void keep_only(std::vector<Decoder>& decoders, const std::string& only, unsigned jobs) {
    const bool calls_row = only.starts_with("calls") || only.starts_with("profile");
    std::erase_if(decoders, [&](const Decoder& d) {
        if (calls_row)
            return d.name != "block" && d.name != "flow-j1" && d.name != only && d.name != only + "-libipt";
        return only != d.name && !(only == "flow-jN" && d.command && jobs > 1 && d.name != "flow-j1");
    });
}

int usage() {
    std::fputs(
        "usage: ipt_flow_bench [--size-kb N] [--seed S] [--functions N] [--cyc 1] [-j N] "
        "[--only ours|ours-count|block|insn|ours-insn|flow-j1|flow-jN|calls|profile|calls-time|profile-time] "
        "[--write PREFIX]\n",
        stderr);
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    rb::FlowOptions o;
    std::string only, write;
    unsigned jobs = 2;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (i + 1 >= argc) return usage();
        std::string v = argv[++i];
        if (a == "--size-kb")
            o.pt_bytes = std::strtoull(v.c_str(), nullptr, 0) << 10;
        else if (a == "--seed")
            o.seed = std::strtoull(v.c_str(), nullptr, 0);
        else if (a == "--functions")
            o.functions = std::max(2, std::atoi(v.c_str()));
        else if (a == "--only")
            only = v;
        else if (a == "--write")
            write = v;
        else if (a == "--cyc")
            o.cyc = v != "0";
        else if (a == "-j")
            jobs = static_cast<unsigned>(std::max(1, std::atoi(v.c_str())));
        else
            return usage();
    }
    const rb::FlowProgram program = rb::make_program(o);
    const rb::FlowTrace trace = rb::trace_program(program, o);
    std::string prefix = write;
    char tmp[] = "/tmp/ipt_flow_bench.XXXXXX";
    if (prefix.empty()) {
        if (!mkdtemp(tmp)) return 1;
        prefix = std::string(tmp) + "/s";
    }
    const std::string code_path = prefix + ".bin", pt_path = prefix + ".pt";
    {
        // The functions' names, for `ipt calls|profile --kallsyms`.
        std::FILE* f = std::fopen((prefix + ".kallsyms").c_str(), "w");
        if (!f) return 1;
        for (size_t k = 0; k < program.function_start.size(); ++k)
            std::fprintf(f, "%016" PRIx64 " T %s\n", program.function_start[k],
                         program.function_name[k].c_str());
        std::fclose(f);
    }
    for (auto [path, bytes] : {std::pair{code_path, &program.code}, std::pair{pt_path, &trace.pt}}) {
        std::FILE* f = std::fopen(path.c_str(), "wb");
        if (!f || std::fwrite(bytes->data(), 1, bytes->size(), f) != bytes->size() || std::fclose(f)) {
            std::fprintf(stderr, "ipt_flow_bench: cannot write %s\n", path.c_str());
            return 1;
        }
    }
    std::printf("stream: %.2f MiB of trace, %zu bytes of code (%d functions), %" PRIu64 " instructions run\n",
                static_cast<double>(trace.pt.size()) / (1 << 20), program.code.size(), o.functions,
                trace.insn);

    ri::Config config;
    config.begin = trace.pt.data();
    config.end = trace.pt.data() + trace.pt.size();
    config.packets = ri::PacketSet::libipt_2_0_5;
    ri::Image image;
    if (!image.add_raw(code_path, 0, 0, program.address)) return 1;
    const flow_libipt_code code{code_path.c_str(), program.address, program.code.size(),
                                program.size_at.data(), program.kind_at.data()};

    auto theirs = [&](int block) {
        flow_libipt_result r{};
        if (flow_libipt_decode(trace.pt.data(), trace.pt.size(), &code, block, &r) < 0) std::abort();
        return r;
    };
    auto timed = [](auto f) { return [f] { return rb::run_once([&] { return Result{f(), 0, 0}; }); }; };
    auto command = [&](unsigned j) {
        return [&, j] { return flow_command(code_path, pt_path, program.address, j); };
    };
    std::vector<Decoder> decoders = {
        {"ours", timed([&] { return ours(config, image, code, Way::path); })},
        {"ours-count", timed([&] { return ours(config, image, code, Way::count); }), false, true},
        {"block", timed([&] { return theirs(1); })},
        {"insn", timed([&] { return theirs(0); })},
        {"ours-insn", timed([&] { return ours(config, image, code, Way::insn); })},
        {"flow-j1", command(1), true},
    };
    if (jobs > 1) decoders.push_back({"flow-j" + std::to_string(jobs), command(jobs), true});
    // The files outlive the rows' runs (main's locals).
    const rb::CallsFiles files{code_path, pt_path, prefix + ".kallsyms", program.address};
    add_calls_rows(decoders, files, trace.insn, only);
    if (!only.empty()) {
        keep_only(decoders, only, jobs);
        if (decoders.empty()) return usage();
    }
    // Interleaved, so that all see the same load; medians of five.
    std::vector<std::vector<Result>> runs(decoders.size());
    for (int round = 0; round < 5; ++round)
        for (size_t k = 0; k < decoders.size(); ++k) runs[k].push_back(decoders[k].run());
    std::vector<Result> med;
    for (auto& r : runs) med.push_back(median(r));
    report(decoders, med, static_cast<double>(trace.pt.size()) / (1 << 20));
    if (write.empty()) {
        std::remove(code_path.c_str());
        std::remove(pt_path.c_str());
        std::remove((prefix + ".kallsyms").c_str());
        rmdir(tmp);
    }
    return 0;
}
