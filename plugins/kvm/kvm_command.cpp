#include "kvm_command.hpp"

#include <cstdio>
#include <cstdlib>

#include <ringscope/trace.hpp>

#include "kvm_exits.hpp"

namespace ringscope::kvm {
namespace {

constexpr const char* kUsage =
    "usage: ringscope kvm exits [--format text|json|csv] [--top N] FILE [GUEST_FILE...]\n"
    "  per exit reason and per vCPU: count, share, exit-to-entry time (min/mean/p50/p99/max);\n"
    "  per reason the guest functions with the most exits (--top N, default 5)\n";

int usage(CommandEnv& env, const std::string& msg) {
    if (!msg.empty()) std::fprintf(env.err(), "ringscope kvm: %s\n", msg.c_str());
    std::fputs(kUsage, env.err());
    return 2;
}

}  // namespace

int run_kvm_command(const std::vector<std::string>& args, CommandEnv& env) {
    if (args.empty() || args[0] == "-h" || args[0] == "--help") {
        if (!args.empty()) {
            std::fputs(kUsage, env.out());
            return 0;
        }
        return usage(env, "");
    }
    if (args[0] != "exits") return usage(env, "unknown subcommand '" + args[0] + "'");

    TableFormat format = TableFormat::text;
    KvmExitsOptions opts;
    std::vector<std::string> files;
    for (size_t i = 1; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&](const std::string& name, std::string& out) {
            if (a.rfind(name + "=", 0) == 0) {
                out = a.substr(name.size() + 1);
                return true;
            }
            if (a == name && i + 1 < args.size()) {
                out = args[++i];
                return true;
            }
            return false;
        };
        std::string v;
        if (a == "-h" || a == "--help") {
            std::fputs(kUsage, env.out());
            return 0;
        } else if (value("--format", v)) {
            if (!parse_table_format(v, format))
                return usage(env, "--format: '" + v + "' is not text, json or csv");
        } else if (value("--top", v)) {
            char* end = nullptr;
            unsigned long n = std::strtoul(v.c_str(), &end, 10);
            if (v.empty() || *end || n == 0 || n > 1000000)
                return usage(env, "--top: '" + v + "' is not a count");
            opts.top_functions = n;
        } else if (a.size() > 1 && a[0] == '-') {
            return usage(env, "unknown or incomplete option '" + a + "'");
        } else {
            files.push_back(a);
        }
    }
    if (files.empty()) return usage(env, "no trace file");

    TraceOpenOptions open_opts;
    open_opts.resolvers = &env.resolvers();
    std::vector<Trace> traces;
    traces.reserve(files.size());
    for (const auto& f : files) {
        auto t = Trace::open(f, open_opts);
        if (!t) {
            std::fprintf(env.err(), "ringscope kvm: %s\n", t.error().to_string().c_str());
            return 1;
        }
        traces.push_back(std::move(t).value());
    }

    KvmExitsAnalysis analysis(opts);
    analysis.begin(traces.front().context());
    auto feed = [&](Trace&, const Event& ev, int) {
        if (ev.system() == "kvm" && (ev.name() == "kvm_exit" || ev.name() == "kvm_entry"))
            analysis.on_event(ev);
        return 0;
    };
    if (traces.size() == 1) {
        traces.front().iterate(feed);
    } else {
        std::vector<Trace*> ptrs;
        for (auto& t : traces) ptrs.push_back(&t);
        Trace::iterate_multi(ptrs, feed);
    }
    for (const auto& t : traces)
        if (!t.status()) {
            std::fprintf(env.err(), "ringscope kvm: %s\n", t.status().error().to_string().c_str());
            return 1;
        }
    TableCollector tables;
    analysis.end(tables);
    write_tables(env.out(), tables.tables, format);  // the SDK's renderer, as the other analyses
    return 0;
}

}  // namespace ringscope::kvm
