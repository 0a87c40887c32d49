// The SDK side of bench/compare.sh: what bench/reference/iterate_count.c and iterate_format.c do
// with libtracecmd, through ringscope::Trace, with no plugins on either side.
//   sdk_iterate count FILE             -> "EVENTS"
//   sdk_iterate format FILE [--print]  -> "EVENTS BYTES", or every line with --print
// format writes "COMM-PID [CPU] NAME: INFO\n" for each event into one reused TextBuffer, as the
// reference does with tep_print_event into one trace_seq.
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include <ringscope/trace.hpp>

namespace {

int usage(const char* argv0) {
    std::fprintf(stderr, "usage: %s count|format FILE [--print]\n", argv0);
    return 2;
}

}  // namespace

using ringscope::TextBuffer;

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
            // The head in one write: COMM-PID [CPU] NAME: with the CPU as "%03d", as
            // tep_print_event prints TEP_PRINT_CPU in the reference.
            const std::string_view comm = ev.comm(), name = ev.name();
            line.clear();
            char* p = line.begin_write(comm.size() + name.size() + 2 * TextBuffer::kMaxIntChars + 6);
            p = TextBuffer::put(p, comm);
            p = TextBuffer::put(p, '-');
            p = TextBuffer::put_int(p, ev.pid());
            p = TextBuffer::put(p, " [");
            p = TextBuffer::put_int_width(p, ev.cpu(), 3);
            p = TextBuffer::put(p, "] ");
            p = TextBuffer::put(p, name);
            p = TextBuffer::put(p, ": ");
            line.end_write(p);
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
