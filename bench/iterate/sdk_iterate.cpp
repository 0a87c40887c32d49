// The SDK side of bench/compare.sh: what bench/reference/iterate_count.c and iterate_format.c do
// with libtracecmd, through ringscope::Trace, with no plugins on either side.
//   sdk_iterate count FILE             -> "EVENTS"
//   sdk_iterate format FILE [--print]  -> "EVENTS BYTES", or every line with --print
// format writes "COMM-PID [CPU] NAME: INFO\n" for each event into one reused TextBuffer, as the
// reference does with tep_print_event into one trace_seq.
#include <cstdio>
#include <cstring>
#include <string>

#include <ringscope/trace.hpp>

namespace {

int usage(const char* argv0) {
    std::fprintf(stderr, "usage: %s count|format FILE [--print]\n", argv0);
    return 2;
}

// "%03d", as tep_print_event's TEP_PRINT_CPU field is printed in the reference.
void append_cpu(ringscope::TextBuffer& out, int cpu) {
    if (cpu >= 0 && cpu < 100) {
        out.push_back('0');
        if (cpu < 10) out.push_back('0');
    }
    out.append_int(cpu);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3 || argc > 4) return usage(argv[0]);
    const std::string mode = argv[1];
    const bool print = argc == 4 && std::strcmp(argv[3], "--print") == 0;
    if ((mode != "count" && mode != "format") || (argc == 4 && (!print || mode != "format")))
        return usage(argv[0]);

    ringscope::TraceOpenOptions options;
    options.load_plugins = false;
    auto trace = ringscope::Trace::open(argv[2], options);
    if (!trace) {
        std::fprintf(stderr, "%s: %s\n", argv[0], trace.error().to_string().c_str());
        return 1;
    }
    unsigned long long events = 0, bytes = 0;
    if (mode == "count") {
        for (const ringscope::Event& ev : trace->events()) {
            (void)ev;
            ++events;
        }
    } else {
        ringscope::TextBuffer line;
        for (const ringscope::Event& ev : trace->events()) {
            line.clear();
            line.append(ev.comm());
            line.push_back('-');
            line.append_int(ev.pid());
            line.append(" [");
            append_cpu(line, ev.cpu());
            line.append("] ");
            line.append(ev.name());
            line.append(": ");
            trace->print_info(ev, line);
            line.push_back('\n');
            ++events;
            bytes += line.size();
            if (print) std::fwrite(line.data(), 1, line.size(), stdout);
        }
    }
    if (!trace->status()) {
        std::fprintf(stderr, "%s: %s\n", argv[0], trace->status().error().to_string().c_str());
        return 1;
    }
    if (mode == "count")
        std::printf("%llu\n", events);
    else if (!print)
        std::printf("%llu %llu\n", events, bytes);
    return 0;
}
