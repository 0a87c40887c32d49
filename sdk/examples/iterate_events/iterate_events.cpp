// The example of libtracecmd's tracecmd_iterate_events(3), ported to ringscope's SDK: same options
// (-c cpu, -f filter, -e event), same output.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <ringscope/trace.hpp>

namespace {

struct PrivateData {
    int cpu;
    std::string file;
};

// tep_print_event's "%6.1000d": the time in microseconds, rounded, as "%5llu.%06llu".
void append_time(ringscope::TextBuffer& out, uint64_t ts) {
    uint64_t usecs = (ts + 500) / 1000;
    constexpr uint64_t p10 = 1000000;
    if (p10 < usecs)
        out.appendf("%5llu.%06llu", static_cast<unsigned long long>(usecs / p10),
                    static_cast<unsigned long long>(usecs % p10));
    else
        out.appendf("%12llu", static_cast<unsigned long long>(usecs));
}

int print_events(ringscope::Trace& trace, const ringscope::Event& ev, int) {
    static ringscope::TextBuffer seq;
    auto* pdata = static_cast<PrivateData*>(trace.get_private());

    // For multi handles we need this
    if (pdata->cpu >= 0 && pdata->cpu != ev.cpu()) return 0;

    seq.clear();
    seq.append(pdata->file);
    seq.append(": ");
    append_time(seq, ev.timestamp());
    seq.appendf(" [%03d] ", ev.cpu());
    seq.append(ev.comm());
    seq.appendf("-%d ", ev.pid());
    seq.append(ev.name());
    seq.append(": ");
    trace.print_info(ev, seq);
    seq.push_back('\n');
    std::fwrite(seq.data(), 1, seq.size(), stdout);
    return 0;
}

int missed_events(ringscope::Trace&, const ringscope::Event& ev, int) {
    if (ev.missed_before() > 0)
        std::printf("CPU [%03d] has %lld missed events\n", ev.cpu(), static_cast<long long>(ev.missed_before()));
    else
        std::printf("CPU [%03d] has missed events\n", ev.cpu());
    return 0;
}

[[noreturn]] void usage(const char* argv0) {
    std::printf("usage: [-c cpu][-f filter][-e event] %s trace.dat [trace.dat ...]\n", argv0);
    std::exit(-1);
}

}  // namespace

int main(int argc, char** argv) {
    const char* filter_str = nullptr;
    const char* argv0 = argv[0];
    const char* event = nullptr;
    int cpu = -1;
    int c;

    while ((c = getopt(argc, argv, "c:f:e:")) >= 0) {
        switch (c) {
        case 'c':
            // filter all trace data to this one CPU.
            cpu = std::atoi(optarg);
            break;
        case 'f':
            filter_str = optarg;
            break;
        case 'e':
            event = optarg;
            break;
        default:
            usage(argv0);
        }
    }
    argc -= optind;
    argv += optind;

    if (argc == 0) usage(argv0);

    std::vector<ringscope::Trace> handles;
    std::vector<PrivateData> privs(static_cast<size_t>(argc));
    handles.reserve(static_cast<size_t>(argc));
    for (int i = 0; i < argc; i++) {
        auto opened = ringscope::Trace::open(argv[i]);
        if (!opened) {
            std::fprintf(stderr, "%s\n", opened.error().to_string().c_str());
            std::exit(-1);
        }
        ringscope::Trace& handle = handles.emplace_back(std::move(*opened));
        if (filter_str) {
            if (auto st = handle.add_filter(filter_str, false); !st) {
                std::fprintf(stderr, "adding filter: %s\n", st.error().to_string().c_str());
                std::exit(-1);
            }
        }
        privs[static_cast<size_t>(i)] = {cpu, argv[i]};
        handle.set_private(&privs[static_cast<size_t>(i)]);
        if (event) {
            if (!handle.follow_event("", event, print_events)) {
                std::printf("Could not follow event %s for file %s\n", event, argv[i]);
                std::exit(-1);
            }
        }
        handle.follow_missed_events(missed_events);
    }

    ringscope::Trace::Callback none;
    if (handles.size() == 1) {
        std::vector<int> cpus;
        if (cpu >= 0) cpus.push_back(cpu);
        handles[0].iterate(event ? none : ringscope::Trace::Callback(print_events), cpus);
    } else {
        std::vector<ringscope::Trace*> ptrs;
        for (auto& h : handles) ptrs.push_back(&h);
        ringscope::Trace::iterate_multi(ptrs, event ? none : ringscope::Trace::Callback(print_events));
    }
    for (auto& h : handles) {
        if (!h.status()) std::fprintf(stderr, "%s\n", h.status().error().to_string().c_str());
    }
    return 0;
}
