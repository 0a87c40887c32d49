#include "framework/config/analysis_catalog.hpp"

#include <cstdio>
#include <memory>

#include <ringscope/trace.hpp>

#include "framework/symbols/resolver_registry.hpp"

namespace ringscope::config {
namespace {

// A CommandEnv whose output lands in temporary files, read back after the command.
class CaptureEnv final : public CommandEnv {
  public:
    explicit CaptureEnv(ResolverService& r) : resolvers_(r), out_(std::tmpfile()), err_(std::tmpfile()) {}
    ~CaptureEnv() override {
        if (out_) std::fclose(out_);
        if (err_) std::fclose(err_);
    }
    CaptureEnv(const CaptureEnv&) = delete;
    CaptureEnv& operator=(const CaptureEnv&) = delete;
    bool ok() const noexcept { return out_ && err_; }
    ResolverService& resolvers() override { return resolvers_; }
    std::FILE* out() override { return out_; }
    std::FILE* err() override { return err_; }
    static std::string read_all(std::FILE* f) {
        std::string s;
        std::fflush(f);
        std::rewind(f);
        char buf[65536];
        size_t n;
        while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
        return s;
    }

  private:
    ResolverService& resolvers_;
    std::FILE* out_;
    std::FILE* err_;
};

int run_command(const Command& cmd, const std::vector<std::string>& args, ResolverService& r,
                std::string& out, std::string& err) {
    CaptureEnv env(r);
    if (!env.ok()) {
        err = "cannot create a temporary file";
        return 1;
    }
    int rc = cmd.run(args, env);
    out = CaptureEnv::read_all(env.out());
    err = CaptureEnv::read_all(env.err());
    return rc;
}

}  // namespace

void AnalysisCatalog::add(CatalogEntry entry) {
    for (auto& e : entries_)
        if (e.spec.name == entry.spec.name) return;  // first registration wins, as for commands
    entries_.push_back(std::move(entry));
}

void AnalysisCatalog::add_registered(const plugin::PluginHost& host) {
    for (const auto& a : host.analyses()) {
        CatalogEntry e;
        e.plugin = a.plugin;
        e.spec = a.spec;
        add(std::move(e));
    }
}

void AnalysisCatalog::add_command_backed(const plugin::PluginHost& host) {
    auto declare = [&](std::string plugin, std::string name, std::string doc, std::string command,
                       std::vector<std::string> args, std::vector<AnalysisParam> params,
                       std::vector<std::pair<std::string, std::string>> options) {
        if (!host.find_command(command)) return;
        CatalogEntry e;
        e.plugin = std::move(plugin);
        e.spec.name = std::move(name);
        e.spec.doc = std::move(doc);
        e.spec.params = std::move(params);
        e.command = std::move(command);
        e.command_args = std::move(args);
        e.options = std::move(options);
        add(std::move(e));
    };
    declare("sched", "sched.latency", "wakeup-to-run latency per task and overall, histogram, worst wakeups",
            "sched", {"latency"}, {{"top", ParamType::integer, "10", "how many worst wakeups to list"}},
            {{"top", "--top"}});
    declare("sched", "sched.runtime", "on-CPU time per task and CPU, context switches, migrations", "sched",
            {"runtime"}, {}, {});
    declare("sched", "sched.timeline", "per-CPU busy fraction in time windows", "sched", {"timeline"},
            {{"window", ParamType::duration, "10ms", "window length"}}, {{"window", "--window"}});
    declare("kvm", "kvm.exits", "KVM exits per reason and vCPU, exit-to-entry time, guest functions", "kvm",
            {"exits"}, {{"top", ParamType::integer, "5", "guest functions listed per exit reason"}},
            {{"top", "--top"}});
    // The ipt plugin offers `ipt summary` once it has it; probe rather than assume.
    if (const Command* ipt = host.find_command("ipt")) {
        std::string out, err;
        symbols::ResolverRegistry none;
        if (run_command(*ipt, {"summary", "--help"}, none, out, err) == 0)
            declare("ipt", "ipt.summary", "Intel PT trace summary", "ipt", {"summary"}, {}, {});
    }
}

const CatalogEntry* AnalysisCatalog::find(std::string_view name) const {
    for (const auto& e : entries_)
        if (e.spec.name == name) return &e;
    return nullptr;
}

Expected<AnalysisResult> run_analysis(const CatalogEntry& entry, const AnalysisParams& params,
                                      const std::vector<std::string>& files, const plugin::PluginHost& host,
                                      ResolverService& resolvers, const std::vector<std::string>& filters) {
    AnalysisResult result;
    result.name = entry.spec.name;
    if (!entry.spec.create) {
        const Command* cmd = host.find_command(entry.command);
        if (!cmd)
            return Error(Errc::not_found,
                         entry.spec.name + ": command '" + entry.command + "' is not loaded");
        std::vector<std::string> args = entry.command_args;
        for (const auto& [param, option] : entry.options) {
            args.push_back(option);
            args.push_back(params.string(param));
        }
        args.push_back("--format");
        args.push_back("json");
        args.insert(args.end(), files.begin(), files.end());
        std::string out, err;
        int rc = run_command(*cmd, args, resolvers, out, err);
        if (rc != 0) return Error(Errc::plugin, entry.spec.name + ": " + (err.empty() ? "failed" : err));
        result.json = nlohmann::ordered_json::parse(out, nullptr, false);
        if (result.json.is_discarded())
            return Error(Errc::parse, entry.spec.name + ": the command's output is not JSON");
        return result;
    }

    std::unique_ptr<EventHandler> handler = entry.spec.create(params);
    if (!handler) return Error(Errc::invalid_argument, entry.spec.name + ": the plugin made no handler");
    TraceOpenOptions opts;
    opts.load_plugins = false;
    opts.resolvers = &resolvers;
    std::vector<Trace> traces;
    for (const auto& f : files) {
        auto t = Trace::open(f, opts);
        if (!t) return t.error();
        for (const auto& flt : filters)
            if (Status s = t->add_filter(flt); !s) return s.error();
        traces.push_back(std::move(*t));
    }
    std::vector<Trace*> ptrs;
    for (auto& t : traces) ptrs.push_back(&t);
    const std::vector<EventMatch> subs = handler->subscriptions();
    handler->begin(traces.front().context());
    Trace::iterate_multi(ptrs, [&](Trace&, const Event& ev, int) {
        for (const auto& m : subs)
            if (m.matches(ev.system(), ev.name())) {
                handler->on_event(ev);
                break;
            }
        return 0;
    });
    for (auto& t : traces)
        if (!t.status()) return t.status().error();
    TableCollector tables;
    handler->end(tables);
    std::FILE* tmp = std::tmpfile();
    if (!tmp) return Error(Errc::io, "cannot create a temporary file");
    write_tables(tmp, tables.tables, TableFormat::json);
    std::string text = CaptureEnv::read_all(tmp);
    std::fclose(tmp);
    result.json = nlohmann::ordered_json::parse(text, nullptr, false);
    if (result.json.is_discarded()) return Error(Errc::parse, entry.spec.name + ": tables are not JSON");
    return result;
}

}  // namespace ringscope::config
