// report's outputs that replace the events: -p, -e, -f, -P, -E, --check-events, --cpus /
// --first-event / --last-event, and the head of the events ("cpus=N", --stat, --uname, --version,
// a latency trace's text).
#include <unistd.h>

#include "framework/cli/report_run.hpp"
#include "framework/output/report_listings.hpp"

namespace ringscope::cli {

// What trace-cmd does per input before the headers matter: these print for the first file only.
// nullopt when none was asked for.
std::optional<int> ReportRun::print_file_info() {
    engine::TraceFile& first = set_.file(0);
    std::string out;
    if (o_.show_page_size) {
        out = "file page size is " + std::to_string(first.reader().page_size()) + ", and host page size is " +
              std::to_string(getpagesize()) + "\n";
        return write_stdout(out) ? kExitOk : kExitRuntime;
    }
    if (o_.show_endian) {
        output::append_endian(out, first);
        return write_stdout(out) ? kExitOk : kExitRuntime;
    }
    if (o_.check_events) {
        for (size_t i = 0; i < set_.size(); ++i)
            if (!set_.file(i).format_errors().empty()) return kExitFilter;
        return kExitOk;
    }
    if (o_.show_funcs || o_.show_printk || o_.show_events) {
        if (o_.show_funcs)
            output::append_functions(out, first);
        else if (o_.show_printk)
            output::append_printk(out, first);
        else
            output::append_event_list(out, first);
        return write_stdout(out) ? kExitOk : kExitRuntime;
    }
    if (o_.list_cpus || o_.first_event || o_.last_event) return list_cpus();
    return std::nullopt;
}

int ReportRun::list_cpus() {
    // trace-cmd 3.1.6 --cpus / --first-event / --last-event: the top buffer's CPUs with data.
    std::string out;
    for (size_t f = 0; f < set_.size(); ++f) {
        engine::TraceFile& file = set_.file(f);
        out += "List of CPUs in " + file.path() + " with data:\n";
        auto streams = file.open_streams(0);
        if (!streams) return fail(streams.error());
        const output::TimeStyle ts{file.in_usecs(), file.use_trace_clock()};
        for (auto& s : *streams) {
            const engine::Record* first = s.peek();
            if (!first) {
                if (!s.status()) return fail(s.status().error());
                continue;
            }
            out += "  " + std::to_string(s.cpu());
            TextBuffer t;
            if (o_.first_event) {
                t.clear();
                output::ReportLineWriter::append_time(t, first->ts, o_.nsec, ts);
                out += "\tFirst event:";
                out += t.view();
            }
            if (o_.last_event) {
                s.seek_end();
                const engine::Record* last = s.peek_back();
                if (last) {
                    t.clear();
                    output::ReportLineWriter::append_time(t, last->ts, o_.nsec, ts);
                    out += "\tLast event:";
                    out += t.view();
                }
            }
            out += '\n';
        }
    }
    write_stdout(out);
    return kExitOk;
}

// The "cpus=N" lines (one per file; the prefix column grows as instances are found), and the
// informational outputs that replace the events; then the handles' prefixes. DONE is set when
// nothing more is to print.
int ReportRun::print_head(bool& done) {
    order_ = set_.buffer_order();
    handles_.assign(order_.size(), {});
    PrefixColumn column(set_, o_.multi);
    std::string head;
    done = true;
    for (size_t f = 0; f < set_.size(); ++f) {
        engine::TraceFile& file = set_.file(f);
        if (text()) {
            if (column.shown()) head += column.prefix({f, 0});
            head += "cpus=" + std::to_string(file.cpu_count()) + "\n";
        }
        const auto& buffers = file.reader().buffers();
        if (!buffers.empty() && buffers[0].latency) {
            // Latency traces are text: trace-cmd prints it as it is.
            if (o_.multi) return fail("latency traces do not work with multiple inputs", kExitRuntime);
            auto t = file.reader().buffer_text(0);
            if (!t) return fail(t.error());
            head += *t;
            write_stdout(head);
            return kExitOk;
        }
        if (o_.version) {
            output::append_version(head, file);
        } else if (o_.uname) {
            output::append_uname(head, file);
            output::append_version(head, file);
        } else if (o_.stat) {
            head +=
                "\nKernel buffer statistics:\n"
                "  Note: \"entries\" are the entries left in the kernel ring buffer and are not\n"
                "        recorded in the trace data. They should all be zero.\n\n";
            output::append_stat(head, file);
        } else {
            column.add_instances(file);
        }
    }
    if (text() && !write_stdout(head)) return kExitRuntime;
    if (info_only()) return kExitOk;
    for (size_t h = 0; h < order_.size(); ++h) {
        if (column.shown()) handles_[h].prefix = column.prefix(order_[h]);
        const engine::TraceFile& hf = set_.file(order_[h].file);
        handles_[h].source =
            hf.path() + (order_[h].buffer ? ":" + hf.buffer_name(order_[h].buffer) : std::string());
        handles_[h].last_ts.assign(static_cast<size_t>(std::max(1, hf.cpu_count())), 0);
    }
    done = false;
    return kExitOk;
}

}  // namespace ringscope::cli
