// `ringscope convert FILE... -o OUT.perfetto-trace`: trace.dat files -> one Perfetto protobuf trace
// (framework/perfetto). Every event `report` prints becomes one FtraceEvent: the CPU streams of
// every file and buffer `report` merges, each encoded on its own (bundles are per stream, so no
// time merge is needed), on up to -j threads.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <thread>

#include <ringscope/output_check.hpp>

#include "framework/cli/cli_context.hpp"
#include "framework/cli/option_parsing.hpp"
#include "framework/engine/parallel_for.hpp"
#include "framework/engine/trace_set.hpp"
#include "framework/perfetto/trace_writer.hpp"

namespace po = boost::program_options;

namespace ringscope::cli {

namespace {

po::options_description convert_options() {
    po::options_description opts(
        "usage: ringscope convert FILE... -o OUT.perfetto-trace [--compact-sched] [-j N] [-q]\n\n"
        "Writes the events of trace.dat files as a Perfetto trace (protobuf), for ui.perfetto.dev and\n"
        "trace_processor: per-CPU ftrace event bundles, typed where Perfetto defines the event, every\n"
        "other event generic with all its fields; task names, ftrace stats (dropped events), kernel\n"
        "symbols of workqueue functions. Several files (a host and its guests): each after the first\n"
        "is a machine of its own, on the host's time line. CPU streams are encoded on N threads\n"
        "(default: the cores); the packets' order in the file then varies, not their content.\n"
        "The bundles name the trace clock (local, global, mono_raw; boot and the clocks Perfetto\n"
        "has no value for are left as trace processor's default time line).\n"
        "See framework/perfetto/README.md.\n\nOptions");
    opts.add_options()("help,h", "this text")("output,o", po::value<std::string>(), "the trace to write")(
        "jobs,j", po::value<unsigned>()->default_value(0), "threads (0: the cores)")(
        "compact-sched",
        "sched_switch and sched_waking as Perfetto's CompactSched columns (as traced_probes writes "
        "them: smaller, without switch's prev_* fields and the events' common_pid) instead of one "
        "FtraceEvent each")("quiet,q", "no summary line")("files", po::value<std::vector<std::string>>(),
                                                          "trace.dat files");
    return opts;
}

// The writer's stream of each merge source; each input begun at the time of its first event
// (its metadata packets get that time).
std::vector<perfetto::TraceWriter::Stream*> begin_streams(const engine::TraceSet& set,
                                                          std::vector<engine::MergeSource>& sources,
                                                          perfetto::TraceWriter& writer) {
    std::vector<perfetto::TraceWriter::Stream*> streams;
    std::vector<std::optional<uint64_t>> first(set.size());
    for (size_t k = 0; k < sources.size(); ++k) {
        auto& src = sources[k];
        streams.push_back(&writer.stream(static_cast<int>(src.file_index), static_cast<int>(k)));
        if (const engine::Record* r = src.stream.peek()) {
            auto& f = first[src.file_index];
            f = f ? std::min(*f, r->ts) : r->ts;
        }
    }
    for (size_t i = 0; i < set.size(); ++i) writer.begin_input(static_cast<int>(i), first[i]);
    return streams;
}

// Encodes every source's events into its stream, on `threads` threads. Returns how many records
// were skipped for an event id without a format (report skips these too).
uint64_t encode_streams(std::vector<engine::MergeSource>& sources,
                        const std::vector<perfetto::TraceWriter::Stream*>& streams,
                        perfetto::TraceWriter& writer, int threads) {
    std::atomic<uint64_t> unknown{0};
    engine::parallel_for(sources.size(), threads, [&](size_t k) {
        engine::MergeSource& src = sources[k];
        engine::TraceFile& file = *src.file;
        uint64_t skipped = 0;
        while (const engine::Record* rec = src.stream.peek()) {
            if (const EventType* type = file.type_of(rec->data, rec->size)) {
                Event ev(type, &file, {rec->data, rec->size}, rec->ts, rec->cpu, rec->missed, rec->trailing);
                writer.on_event(*streams[k], ev);
            } else {
                ++skipped;
            }
            src.stream.advance();
        }
        unknown += skipped;
    });
    return unknown;
}

}  // namespace

int run_convert(CliContext& ctx, const std::vector<std::string>& args) {
    po::positional_options_description pos;
    pos.add("files", -1);
    po::variables_map vm;
    if (int rc = parse_options(ctx, "convert", convert_options(), pos, args, vm); rc >= 0) return rc;
    if (!vm.count("files")) {
        ctx.error("convert: no trace file given (see ringscope convert --help)");
        return kExitUsage;
    }
    if (!vm.count("output")) {
        ctx.error("convert: -o OUT.perfetto-trace is required (see ringscope convert --help)");
        return kExitUsage;
    }
    const auto files = vm["files"].as<std::vector<std::string>>();
    const std::string out = vm["output"].as<std::string>();
    auto fail = [&](const Error& e) {
        ctx.error("convert: " + e.to_string());
        return kExitRuntime;
    };
    // Never over an input, a device or a folder (the shared output rules).
    if (Status s = check_outputs({out}, files); !s) {
        ctx.error("convert: " + s.error().to_string());
        return kExitUsage;
    }

    engine::TraceSet set;
    for (const auto& f : files)
        if (Status st = set.add_file(f, engine::OpenOptions{}); !st) return fail(st.error());
    set.pair_guests();  // a guest's functions come from its own file's kallsyms
    engine::EventMerger merger;
    if (Status st = set.build_merger(set.buffer_order(), {}, merger); !st) return fail(st.error());

    perfetto::WriterOptions wopts;
    wopts.compact_sched = vm.count("compact-sched") > 0;
    auto writer = perfetto::TraceWriter::create(out, wopts);
    if (!writer) return fail(writer.error());
    for (size_t i = 0; i < set.size(); ++i) (*writer)->add_input(static_cast<int>(i), set.file(i));
    const auto streams = begin_streams(set, merger.sources(), **writer);
    const unsigned jobs = vm["jobs"].as<unsigned>();
    const int threads = static_cast<int>(jobs ? jobs : std::max(1u, std::thread::hardware_concurrency()));
    const uint64_t unknown = encode_streams(merger.sources(), streams, **writer, threads);
    if (Status st = merger.status(); !st) return fail(st.error());
    if (Status st = (*writer)->finish(); !st) return fail(st.error());
    if (unknown)
        std::fprintf(stderr, "%s convert: %llu records with an event id that has no format were skipped\n",
                     ctx.program.c_str(), static_cast<unsigned long long>(unknown));
    if (!vm.count("quiet"))
        std::fprintf(stderr, "%s: %llu events, %llu bytes\n", out.c_str(),
                     static_cast<unsigned long long>((*writer)->events()),
                     static_cast<unsigned long long>((*writer)->bytes()));
    return kExitOk;
}

}  // namespace ringscope::cli
