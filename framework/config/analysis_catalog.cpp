#include "framework/config/analysis_catalog.hpp"

#include <cstdio>

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
    // Intel PT streams are not trace.dat files, so ipt.summary keeps its own pass through the
    // plugin's command. Probe for `ipt summary` rather than assume the plugin has it.
    const Command* ipt = host.find_command("ipt");
    std::string out, err;
    symbols::ResolverRegistry none;
    if (!ipt || run_command(*ipt, {"summary", "--help"}, none, out, err) != 0) return;
    CatalogEntry e;
    e.plugin = "ipt";
    e.spec.name = "ipt.summary";
    e.spec.doc = "Intel PT trace summary";
    e.command = "ipt";
    e.command_args = {"summary"};
    e.takes_selection = false;
    add(std::move(e));
}

const CatalogEntry* AnalysisCatalog::find(std::string_view name) const {
    for (const auto& e : entries_)
        if (e.spec.name == name) return &e;
    return nullptr;
}

Expected<AnalysisResult> run_command_analysis(const CatalogEntry& entry, const AnalysisParams& params,
                                              const std::vector<std::string>& selection,
                                              const std::vector<std::string>& files,
                                              const plugin::PluginHost& host, ResolverService& resolvers) {
    const Command* cmd = host.find_command(entry.command);
    if (!cmd)
        return Error(Errc::not_found, entry.spec.name + ": command '" + entry.command + "' is not loaded");
    std::vector<std::string> args = entry.command_args;
    for (const auto& [param, option] : entry.options) {
        args.push_back(option);
        args.push_back(params.string(param));
    }
    args.push_back("--format");
    args.push_back("json");
    if (entry.takes_selection) args.insert(args.end(), selection.begin(), selection.end());
    args.insert(args.end(), files.begin(), files.end());
    std::string out, err;
    int rc = run_command(*cmd, args, resolvers, out, err);
    if (rc != 0) return Error(Errc::plugin, entry.spec.name + ": " + (err.empty() ? "failed" : err));
    AnalysisResult result;
    result.name = entry.spec.name;
    result.json = nlohmann::ordered_json::parse(out, nullptr, false);
    if (result.json.is_discarded())
        return Error(Errc::parse, entry.spec.name + ": the command's output is not JSON");
    return result;
}

}  // namespace ringscope::config
