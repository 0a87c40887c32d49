#include "framework/plugin/plugin_host.hpp"

#include "framework/plugin/plugin_paths.hpp"
#include "framework/plugin/plugin_probe.hpp"
#include "framework/plugin/print_options.hpp"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <system_error>

#include <ringscope/version.hpp>

namespace fs = std::filesystem;

namespace ringscope::plugin {
namespace {

// Collects one plugin's registrations so that a plugin failing half-way registers nothing.
class StagingRegistry final : public PluginRegistry {
  public:
    void add_decoder(std::shared_ptr<Decoder> decoder) override {
        if (decoder) decoders.push_back(std::move(decoder));
    }
    void add_handler(HandlerFactory factory) override {
        if (factory) handlers.push_back(std::move(factory));
    }
    void add_resolver(std::string domain, std::shared_ptr<const SymbolResolver> resolver) override {
        if (resolver) resolvers.emplace_back(std::move(domain), std::move(resolver));
    }
    void add_command(Command command) override {
        if (command.run) commands.push_back(std::move(command));
    }
    void add_report_option(ReportOption option) override {
        if (option.factory && (!option.long_name.empty() || option.short_name))
            report_options.push_back(std::move(option));
    }
    void add_analysis(AnalysisSpec spec) override {
        if (spec.create && !spec.name.empty()) analyses.push_back(std::move(spec));
    }
    const PrintOptionValue& add_print_option(PrintOption option) override {
        auto value = std::make_shared<PrintOptionValue>(PrintOptionValue{option.set, option.default_value});
        print_options.emplace_back(std::move(option), value);
        return *value;
    }

    void add_timeline_annotator(TimelineAnnotatorFactory factory) override {
        if (factory) annotators.push_back(std::move(factory));
    }

    std::vector<std::shared_ptr<Decoder>> decoders;
    std::vector<HandlerFactory> handlers;
    std::vector<TimelineAnnotatorFactory> annotators;
    std::vector<std::pair<std::string, std::shared_ptr<const SymbolResolver>>> resolvers;
    std::vector<Command> commands;
    std::vector<ReportOption> report_options;
    std::vector<AnalysisSpec> analyses;
    std::vector<std::pair<PrintOption, std::shared_ptr<PrintOptionValue>>> print_options;
};

std::string what_of(const std::exception_ptr& e) {
    try {
        std::rethrow_exception(e);
    } catch (const std::exception& ex) {
        return ex.what();
    } catch (...) {
        return "unknown exception";
    }
}

bool same_spelling(const ReportOption& a, const ReportOption& b) {
    return (a.short_name && a.short_name == b.short_name) ||
           (!a.long_name.empty() && a.long_name == b.long_name);
}

}  // namespace

std::string report_option_spelling(const ReportOption& option) {
    std::string s;
    if (option.short_name) s = std::string("-") + option.short_name;
    if (!option.long_name.empty()) s += (s.empty() ? "--" : "/--") + option.long_name;
    return s;
}

PluginHost::~PluginHost() {
    // Objects made by plugin code go before the code itself is unmapped.
    report_options_.clear();
    print_options_.clear();
    annotators_.clear();
    decoders_.clear();
    analyses_.clear();
    commands_.clear();
    resolvers_.clear();
    handlers_.clear();
    instances_.clear();
}

void PluginHost::load_dirs(const std::vector<std::string>& dirs) {
    for (const std::string& dir : dirs)
        for (const std::string& f : plugin_files(dir, diagnostics_)) load_file(f);
}

void PluginHost::apply_print_options(const std::vector<std::string>& args) {
    apply_dash_o(print_options_, args);
}

const Command* PluginHost::find_command(std::string_view name) const {
    for (const auto& c : commands_)
        if (c.command.name == name) return &c.command;
    return nullptr;
}

bool PluginHost::load_file(const std::string& path) {
    std::error_code ec;
    for (const auto& p : plugins_)
        if (fs::equivalent(p.path, path, ec)) return true;  // the same file reached through two paths
    // In a child first (a copy of this host, so duplicates count the same): a plugin that crashes
    // or hangs there is named and skipped.
    ProbeResult probe = probe_plugin(path, [&] { return load_in_process(path); });
    if (!probe.load) {
        diagnostics_.push_back("plugin " + path + ": " + probe.why);
        return false;
    }
    return load_in_process(path);
}

bool PluginHost::load_in_process(const std::string& path) {
    auto fail = [&](const std::string& why) {
        diagnostics_.push_back("plugin " + path + ": " + why);
        return false;
    };

    boost::dll::shared_library lib;
    try {
        lib.load(path, boost::dll::load_mode::rtld_lazy | boost::dll::load_mode::rtld_local);
    } catch (const std::exception& e) {
        return fail(std::string("not a loadable shared object (") + e.what() + ")");
    }
    if (!lib.has(kPluginEntrySymbol))
        return fail(std::string("not a ringscope plugin: no '") + kPluginEntrySymbol + "' entry symbol");

    const PluginDescriptor* desc = nullptr;
    try {
        desc = &lib.get_alias<const PluginDescriptor>(kPluginEntrySymbol);
    } catch (const std::exception& e) {
        return fail(std::string("cannot read the entry symbol: ") + e.what());
    }
    if (!desc) return fail("null plugin descriptor");
    if (desc->abi != kSdkAbi) {
        return fail("built for SDK ABI " + std::to_string(desc->abi) + ", this ringscope has ABI " +
                    std::to_string(kSdkAbi) + " (rebuild the plugin against SDK " + kSdkVersion + ")");
    }
    if (!desc->name || !*desc->name || !desc->create) return fail("descriptor without a name or factory");
    std::string name = desc->name;
    for (const auto& p : plugins_) {
        if (p.name == name) return fail("a plugin named '" + name + "' is already loaded from " + p.path);
    }

    std::unique_ptr<Plugin> instance;
    StagingRegistry staged;
    try {
        instance.reset(desc->create());
        if (!instance) return fail("factory returned no plugin");
        instance->register_into(staged);
    } catch (...) {
        std::string why = what_of(std::current_exception());
        staged = StagingRegistry();
        instance.reset();
        return fail("plugin '" + name + "' failed to initialise: " + why);
    }
    for (const auto& c : staged.commands) {
        if (const Command* other = find_command(c.name)) {
            (void)other;
            staged = StagingRegistry();
            instance.reset();
            return fail("plugin '" + name + "' adds a command '" + c.name + "' that another plugin has");
        }
    }
    for (const auto& o : staged.report_options) {
        for (const auto& other : report_options_) {
            if (!same_spelling(o, other.option)) continue;
            staged = StagingRegistry();
            instance.reset();
            return fail("plugin '" + name + "' adds a report option " + report_option_spelling(o) +
                        " that plugin '" + other.plugin + "' has");
        }
    }
    for (const auto& a : staged.analyses) {
        for (const auto& other : analyses_) {
            if (other.spec.name != a.name) continue;
            staged = StagingRegistry();
            instance.reset();
            return fail("plugin '" + name + "' adds an analysis '" + a.name + "' that plugin '" +
                        other.plugin + "' has");
        }
    }

    LoadedPlugin info;
    info.name = name;
    info.version = desc->version ? desc->version : "";
    info.path = path;
    for (auto& d : staged.decoders) {
        info.decoders.emplace_back(d->format_name());
        decoders_.push_back({name, std::move(d)});
    }
    for (auto& h : staged.handlers) {
        try {
            std::unique_ptr<EventHandler> probe = h();
            if (probe) {
                info.handlers.emplace_back(probe->name());
                info.handler_events.push_back(probe->subscriptions());
            }
        } catch (...) {
            diagnostics_.push_back("plugin " + path + ": a handler factory of '" + name +
                                   "' failed: " + what_of(std::current_exception()));
            continue;
        }
        handlers_.push_back({name, std::move(h)});
    }
    for (auto& a : staged.annotators) {
        try {
            std::unique_ptr<TimelineAnnotator> probe = a();
            if (!probe) continue;
            info.annotators.emplace_back(probe->name());
            info.annotator_events.push_back(probe->subscriptions());
        } catch (...) {
            diagnostics_.push_back("plugin " + path + ": a timeline annotator factory of '" + name +
                                   "' failed: " + what_of(std::current_exception()));
            continue;
        }
        annotators_.push_back({name, std::move(a)});
    }
    for (auto& [domain, r] : staged.resolvers) {
        info.resolvers.push_back(domain + ": " + r->describe());
        resolvers_.push_back({name, std::move(domain), std::move(r)});
    }
    for (auto& c : staged.commands) {
        info.commands.push_back(c.name);
        commands_.push_back({name, std::move(c)});
    }
    for (auto& o : staged.report_options) {
        info.report_options.push_back(report_option_spelling(o));
        report_options_.push_back({name, std::move(o)});
    }
    for (auto& a : staged.analyses) {
        info.analyses.push_back(a.name);
        analyses_.push_back({name, std::move(a)});
    }
    for (auto& [o, value] : staged.print_options) {
        info.print_options.push_back(o.plugin + ":" + o.name);
        print_options_.push_back({name, std::move(o), std::move(value)});
    }
    plugins_.push_back(std::move(info));
    instances_.push_back(std::move(instance));
    libraries_.push_back(std::move(lib));
    return true;
}

}  // namespace ringscope::plugin
