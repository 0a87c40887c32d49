// Opening report's inputs, their symbols and filters, and the name column of merged buffers.
#include "framework/cli/report_inputs.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>

#include "framework/format/format_parser.hpp"
#include "framework/symbols/guest_symbols.hpp"
#include "framework/symbols/kallsyms_resolver.hpp"

namespace ringscope::cli {

std::string base_name(const std::string& path) {
    size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

PrefixColumn::PrefixColumn(const engine::TraceSet& set, bool multi) : set_(set), multi_(multi) {
    if (multi)
        for (size_t f = 0; f < set.size(); ++f)
            max_name_ = std::max(max_name_, base_name(set.file(f).path()).size());
}

void PrefixColumn::add_instances(const engine::TraceFile& file) {
    const auto& buffers = file.reader().buffers();
    size_t n_inst = 0;
    for (size_t b = 1; b < buffers.size(); ++b) {
        if (buffers[b].latency) continue;
        ++n_inst;
        max_name_ = std::max(max_name_, base_name(buffers[b].name).size());
    }
    instances_ = n_inst > 0;
}

std::string PrefixColumn::prefix(const engine::BufferRef& ref) const {
    std::string name = ref.buffer ? base_name(set_.file(ref.file).buffer_name(ref.buffer))
                                  : (multi_ ? base_name(set_.file(ref.file).path()) : std::string());
    if (name.empty() && ref.buffer == 0 && !multi_) return std::string(max_name_, ' ') + "  ";
    std::string p(max_name_ > name.size() ? max_name_ - name.size() : 0, ' ');
    return p + name + ": ";
}

std::optional<ReportFailure> open_report_inputs(const ReportOptions& o, int threads, engine::TraceSet& set) {
    for (const auto& in : o.inputs) {
        engine::OpenOptions oo;
        oo.raw_ts = o.raw_ts;
        oo.ts2secs_hz = in.ts2secs;
        oo.ignore_date = o.nodate;
        oo.ts_offset = in.ts_offset;
        oo.prefetch_kallsyms = threads > 1;
        oo.threads = threads;
        apply_compat(*o.compat, oo);
        if (Status st = set.add_file(in.path, oo); !st) return ReportFailure{st.error().to_string()};
        for (const auto& d : set.file(set.size() - 1).section_diagnostics())
            std::fprintf(stderr, "ringscope: %s\n", d.c_str());
    }
    return std::nullopt;
}

std::optional<ReportFailure> add_report_symbols(const ReportOptions& o, const plugin::PluginHost* plugins,
                                                engine::TraceSet& set) {
    // Plugin resolvers first; the files' own kallsyms are asked before the shared service anyway.
    if (plugins)
        for (const auto& r : plugins->resolvers()) set.resolvers().add(r.domain, r.resolver);
    set.pair_guests();
    for (const auto& arg : o.guest_symbols) {
        auto g = load_guest_symbols(arg);
        if (!g && g.error().code() == Errc::invalid_argument)
            return ReportFailure{g.error().to_string(), kExitReportUsage};
        if (!g) return ReportFailure{g.error().to_string()};
        set.resolvers().add(g->domain, g->resolver);
    }
    if (!o.kallsyms_file.empty()) {
        // --kallsyms replaces the functions the files carry.
        auto ks = symbols::KallsymsResolver::load(o.kallsyms_file);
        if (!ks) return ReportFailure{ks.error().to_string()};
        for (size_t i = 0; i < set.size(); ++i)
            set.file(i).own_resolvers().add(std::string(kKernelDomain), *ks);
    }
    return std::nullopt;
}

namespace {

// The pids of --comm, from the first file's saved cmdlines (as trace-cmd, for every file).
std::vector<int> comm_pids(const ReportOptions& o, engine::TraceFile& first) {
    std::vector<int> pid_set;
    for (const auto& comm : o.comms) {
        bool found = false;
        first.comms().for_each([&](int pid, std::string_view name) {
            if (name != comm) return;
            pid_set.push_back(pid);
            found = true;
        });
        if (!found) std::fprintf(stderr, "  comm: %s not in cmdline list\n", comm.c_str());
    }
    return pid_set;
}

// FF's filters into FS, with --pid and --comm (COMM_PIDS) when they reach this file.
std::optional<ReportFailure> add_file_filters(const ReportOptions& o, const std::vector<int>& comm_pids,
                                              const std::vector<const EventType*>& types,
                                              const FileFilters& ff, FilterSet& fs) {
    // Numeric pids (and every pid of a --comm) are matched as a set, not as a filter string:
    // a comm shared by thousands of pids would pass the grammar's 1024 tokens.
    std::vector<std::string> pids;
    std::vector<int> pid_set;
    for (const auto& p : ff.pids ? o.pids : std::vector<std::string>{}) {
        char* end = nullptr;
        const long v = std::strtol(p.c_str(), &end, 10);
        if (!p.empty() && !*end && v >= 0 && v <= INT32_MAX)
            pid_set.push_back(static_cast<int>(v));
        else
            pids.push_back(p);
    }
    if (ff.pids) pid_set.insert(pid_set.end(), comm_pids.begin(), comm_pids.end());
    fs.add_pids(pid_set);
    std::vector<std::pair<std::string, bool>> all = ff.filters;
    if (!pids.empty()) {
        std::string text = ".*:";
        for (size_t i = 0; i < pids.size(); ++i) {
            const std::string& p = pids[i];
            if (i) text += "||";
            text += "(common_pid==" + p + ")||(pid==" + p + ")||(next_pid==" + p + ")";
        }
        all.insert(all.begin(), {text, false});
    }
    for (const auto& [text, neg] : all)
        if (Status st = fs.add(text, neg, types); !st)
            return ReportFailure{"Error filtering: " + text + "\n" + st.error().to_string(), kExitFilter};
    return std::nullopt;
}

}  // namespace

int filter_failure_exit(const ReportOptions& o, const engine::TraceSet& set) {
    if (*o.compat != Compat::v3_1 || set.size() == 0) return kExitFilter;
    const engine::TraceFile& last = set.file(set.size() - 1);
    if (last.reader().file_version() < 7) return kExitDieNoErrno;
    const io::TraceMetadata& md = last.reader().metadata();
    const int long_size = last.formats().long_size();
    auto sets_einval = [&](const std::string& text, std::string_view system) {
        auto p = format::parse_format(text, system, long_size);
        return p && p->sets_einval;
    };
    for (const auto& text : md.ftrace_formats)
        if (sets_einval(text, "ftrace")) return kExitFilter;
    for (const auto& sys : md.event_systems)
        for (const auto& text : sys.formats)
            if (sets_einval(text, sys.system)) return kExitFilter;
    return kExitDieNoErrno;
}

FileFilters filters_of_input(const ReportOptions& o, size_t f) {
    FileFilters ff;
    if (*o.compat == Compat::v3_1) {
        // trace-cmd 3.1.6: a -F after the second or a later -i belongs to that file; the others
        // (before the second -i) are one global list, which the first file uses up.
        for (size_t i = 0; i < o.filters.size(); ++i) {
            const int in = o.filter_inputs[i];
            if (in <= 0 ? f == 0 : static_cast<size_t>(in) == f) ff.filters.push_back(o.filters[i]);
        }
        ff.pids = f == 0;
        return ff;
    }
    const bool shared_first =
        std::find(o.filter_inputs.begin(), o.filter_inputs.end(), -1) != o.filter_inputs.end();
    for (size_t i = 0; i < o.filters.size(); ++i) {
        const int in = o.filter_inputs[i];
        if (in < 0 || static_cast<size_t>(in) == f || (shared_first && in == 0))
            ff.filters.push_back(o.filters[i]);
    }
    ff.pids = f == 0 || shared_first;
    return ff;
}

std::optional<ReportFailure> make_report_filters(const ReportOptions& o, engine::TraceSet& set,
                                                 std::vector<FilterSet>& filters) {
    // --comm names become pids through each file's saved cmdlines; --pid filters become one -F
    // string. Which filters reach which file: filters_of_input. Pinned by tests.
    filters.clear();
    filters.resize(set.size());
    const std::vector<int> from_comms = set.size() ? comm_pids(o, set.file(0)) : std::vector<int>{};
    for (size_t f = 0; f < set.size(); ++f) {
        engine::TraceFile& file = set.file(f);
        FilterSet fs;
        fs.keep_showing_stacks(*o.compat == Compat::v3_1);
        const FileFilters ff = filters_of_input(o, f);
        // a filter names events by pattern: every format is parsed for it, so only when one is given
        const bool names_events =
            !o.range.events.empty() || !ff.filters.empty() || (ff.pids && !o.pids.empty());
        const std::vector<const EventType*> types =
            names_events ? file.types() : std::vector<const EventType*>{};
        for (const auto& e : o.range.events)
            if (Status st = fs.limit_events(e, types); !st)
                return ReportFailure{"Error filtering: " + e + "\n" + st.error().to_string(), kExitFilter};
        fs.limit_time(o.range.from_ns, o.range.to_ns);
        if (auto failure = add_file_filters(o, from_comms, types, ff, fs)) return failure;
        if (!fs.empty()) filters[f] = std::move(fs);
    }
    return std::nullopt;
}

}  // namespace ringscope::cli
