// `ringscope convert FILE... -o OUT.perfetto-trace`: trace.dat files -> one Perfetto protobuf trace
// (framework/perfetto). Every event `report` prints becomes one FtraceEvent, read through the same
// merge of files, buffers and CPUs.
#include <cstdio>

#include "framework/cli/cli_context.hpp"
#include "framework/cli/option_parsing.hpp"
#include "framework/engine/trace_set.hpp"
#include "framework/perfetto/trace_writer.hpp"

namespace po = boost::program_options;

namespace ringscope::cli {

int run_convert(CliContext& ctx, const std::vector<std::string>& args) {
    po::options_description opts(
        "usage: ringscope convert FILE... -o OUT.perfetto-trace [-q]\n\n"
        "Writes the events of trace.dat files as a Perfetto trace (protobuf), for ui.perfetto.dev and\n"
        "trace_processor: per-CPU ftrace event bundles, typed where Perfetto defines the event, every\n"
        "other event generic with all its fields; task names, ftrace stats (dropped events), kernel\n"
        "symbols of workqueue functions. Several files (a host and its guests): each after the first\n"
        "is a machine of its own, on the host's time line. See framework/perfetto/README.md.\n\nOptions");
    opts.add_options()("help,h", "this text")("output,o", po::value<std::string>(), "the trace to write")(
        "quiet,q", "no summary line")("files", po::value<std::vector<std::string>>(), "trace.dat files");
    po::positional_options_description pos;
    pos.add("files", -1);
    po::variables_map vm;
    if (int rc = parse_options(ctx, "convert", opts, pos, args, vm); rc >= 0) return rc;
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

    engine::TraceSet set;
    for (const auto& f : files)
        if (Status st = set.add_file(f, engine::OpenOptions{}); !st) return fail(st.error());
    set.pair_guests();  // a guest's functions come from its own file's kallsyms
    engine::EventMerger merger;
    if (Status st = set.build_merger(set.buffer_order(), {}, merger); !st) return fail(st.error());

    auto writer = perfetto::TraceWriter::create(out);
    if (!writer) return fail(writer.error());
    for (size_t i = 0; i < set.size(); ++i) (*writer)->add_input(static_cast<int>(i), set.file(i));

    uint64_t unknown = 0;
    const engine::Record* rec = nullptr;
    engine::MergeSource* src = nullptr;
    while (merger.next(rec, src)) {
        engine::TraceFile& file = *src->file;
        const EventType* type = file.type_of(rec->data, rec->size);
        if (!type) {
            ++unknown;  // report skips these too
            continue;
        }
        Event ev(type, &file, {rec->data, rec->size}, rec->ts, rec->cpu, rec->missed, rec->trailing);
        (*writer)->on_event(static_cast<int>(src->file_index), static_cast<int>(merger.index_of(src)), ev);
    }
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
