// The viewer's session: index, events source, API (view_session.hpp).
#include "framework/cli/view_session.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <thread>

#include <ringscope/selection.hpp>

namespace ringscope::cli {
namespace {

std::string seconds_ns(uint64_t ns) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%llu.%09llu", static_cast<unsigned long long>(ns / 1000000000ull),
                  static_cast<unsigned long long>(ns % 1000000000ull));
    return buf;
}

// The time of a report line ("... [003] 1234.567890: name: ..."), in ns; false for other lines.
bool line_time(std::string_view line, uint64_t& ns) {
    size_t i = line.find("] ");
    while (i != std::string_view::npos) {
        size_t a = i + 2;
        while (a < line.size() && line[a] != ' ') ++a;  // the flags column (3.4), when there
        for (size_t start : {i + 2, a + 1}) {
            size_t colon = line.find(": ", start);
            if (colon == std::string_view::npos || colon <= start) continue;
            std::string_view t = line.substr(start, colon - start);
            while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
            if (t.find(' ') == std::string_view::npos && parse_trace_seconds(t, ns)) return true;
        }
        i = line.find("] ", i + 2);
    }
    return false;
}

// Runs report with ARGS into a pipe; keeps the first LIMIT lines after the SKIP head lines.
Expected<view::EventsAnswer> collect_report(ReportSession& session, const std::vector<std::string>& args,
                                            size_t skip, size_t limit, const ReportStart* start) {
    int fds[2];
    if (pipe(fds) != 0) return Error(Errc::io, "pipe failed");
    view::EventsAnswer ans;
    std::thread reader([&] {
        std::FILE* in = fdopen(fds[0], "r");
        std::string line;
        uint64_t last = 0, n = 0;
        char buf[1 << 16];
        while (std::fgets(buf, sizeof buf, in)) {
            line += buf;
            if (line.back() != '\n') continue;
            line.pop_back();
            if (n++ >= skip) {
                uint64_t ts = last;
                if (line_time(line, ts)) last = ts;
                if (ans.lines.size() < limit) {
                    ans.lines.push_back(line);
                    ans.ts.push_back(ts);
                }
                ++ans.total;
            }
            line.clear();
        }
        std::fclose(in);
    });
    std::FILE* out = fdopen(fds[1], "w");
    const int rc = session.run_to(args, out, start);
    std::fclose(out);
    reader.join();
    if (rc != 0)
        return Error(Errc::invalid_argument, "report exited with " + std::to_string(rc) + " (see stderr)");
    ans.truncated = ans.total > ans.lines.size();
    return ans;
}

}  // namespace

Expected<std::unique_ptr<ViewSession>> ViewSession::open(CliContext& ctx, std::vector<std::string> files,
                                                         std::vector<std::string> report_opts) {
    std::unique_ptr<ViewSession> s(new ViewSession());
    s->files_ = std::move(files);
    s->report_opts_ = std::move(report_opts);
    // The plugins' timeline annotators (kvm: vCPU threads, exits) see the same one pass.
    std::vector<std::unique_ptr<TimelineAnnotator>> annotators;
    for (const auto& a : ctx.plugins().annotators())
        if (auto made = a.factory()) annotators.push_back(std::move(made));
    s->marks_ = std::make_unique<view::ViewMarks>(std::move(annotators));
    auto index = view::ViewIndex::open(s->files_, 16384, 16384, s->marks_.get());
    if (!index) return index.error();
    s->index_ = std::move(*index);
    ViewSession* self = s.get();
    s->reports_ = std::make_unique<ReportSession>(ctx);
    s->events_ = [self](const view::EventsQuery& q) {
        // One thread unless REPORT-OPTIONS say otherwise (a later -j wins): a range of the view is
        // short, and more threads parse the file's kallsyms ahead even when no line needs them.
        std::vector<std::string> a = {"-j", "1"};
        a.insert(a.end(), self->report_opts_.begin(), self->report_opts_.end());
        a.insert(a.end(), {"--from", seconds_ns(q.from), "--to", seconds_ns(q.to)});
        if (!q.filter.empty()) a.insert(a.end(), {"-F", q.filter});
        if (!q.cpus.empty()) {
            std::string list;
            for (int c : q.cpus) list += (list.empty() ? "" : ",") + std::to_string(c);
            a.insert(a.end(), {"--cpu", list});
        }
        for (int p : q.pids) a.insert(a.end(), {"--pid", std::to_string(p)});
        // With -i: trace-cmd 3.1.6 (--compat 3.1) reads one file after the options.
        for (const auto& f : self->files_) a.insert(a.end(), {"-i", f});
        // Report starts each CPU at the index's bucket of q.from instead of reading from the start.
        const view::ViewIndex& ix = *self->index_;
        const ReportStart start{
            [&ix, &q](size_t file, int cpu) { return ix.start_position(file, cpu, q.from); },
            ix.in_time_order()};
        // One "cpus=N" line per file first.
        return collect_report(*self->reports_, a, self->files_.size(), q.limit, &start);
    };
    s->api_ = std::make_unique<view::ViewApi>(*s->index_, s->files_, s->events_);
    s->api_->set_marks(s->marks_.get());
    return s;
}

size_t ViewSession::export_cap() {
    if (const char* env = std::getenv("RINGSCOPE_VIEW_EXPORT_CAP"); env && *env)
        return std::strtoull(env, nullptr, 10);
    return view::kExportCap;
}

}  // namespace ringscope::cli
