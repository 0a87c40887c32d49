#include "framework/plugin/plugin_host.hpp"

#include "framework/plugin/plugin_paths.hpp"
#include "framework/plugin/plugin_probe.hpp"
#include "framework/plugin/print_options.hpp"
#include "framework/plugin/staging_registry.hpp"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <system_error>

#include <ringscope/version.hpp>

namespace fs = std::filesystem;

namespace ringscope::plugin {
namespace {

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

namespace {

// The descriptor behind a loaded library's entry symbol, checked; the reason when it is unusable.
Expected<const PluginDescriptor*> plugin_descriptor(boost::dll::shared_library& lib) {
    auto bad = [](std::string why) { return Error(Errc::plugin, std::move(why)); };
    if (!lib.has(kPluginEntrySymbol))
        return bad(std::string("not a ringscope plugin: no '") + kPluginEntrySymbol + "' entry symbol");
    const PluginDescriptor* desc = nullptr;
    try {
        desc = &lib.get_alias<const PluginDescriptor>(kPluginEntrySymbol);
    } catch (const std::exception& e) {
        return bad(std::string("cannot read the entry symbol: ") + e.what());
    }
    if (!desc) return bad("null plugin descriptor");
    if (desc->abi != kSdkAbi) {
        return bad("built for SDK ABI " + std::to_string(desc->abi) + ", this ringscope has ABI " +
                   std::to_string(kSdkAbi) + " (rebuild the plugin against SDK " + kSdkVersion + ")");
    }
    if (!desc->name || !*desc->name || !desc->create) return bad("descriptor without a name or factory");
    return desc;
}

// Makes one object with each factory to learn its name; a factory that throws is left out, with a
// diagnostic, and one that makes nothing is kept or not as KEEP_EMPTY says.
template <class Factory, class Note>
std::vector<Factory> probe_factories(std::vector<Factory>& factories, bool keep_empty,
                                     const std::string& what, const std::string& plugin,
                                     const std::string& path, std::vector<std::string>& diagnostics,
                                     Note note) {
    std::vector<Factory> kept;
    for (auto& f : factories) {
        try {
            auto made = f();
            if (made) note(*made);
            if (!made && !keep_empty) continue;
        } catch (...) {
            diagnostics.push_back("plugin " + path + ": a " + what + " factory of '" + plugin +
                                  "' failed: " + what_of(std::current_exception()));
            continue;
        }
        kept.push_back(std::move(f));
    }
    return kept;
}

}  // namespace

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
    auto desc = plugin_descriptor(lib);
    if (!desc) return fail(desc.error().message());
    std::string name = (*desc)->name;
    for (const auto& p : plugins_) {
        if (p.name == name) return fail("a plugin named '" + name + "' is already loaded from " + p.path);
    }

    std::unique_ptr<Plugin> instance;
    StagingRegistry staged;
    try {
        instance.reset((*desc)->create());
        if (!instance) return fail("factory returned no plugin");
        instance->register_into(staged);
    } catch (...) {
        std::string why = what_of(std::current_exception());
        staged = StagingRegistry();
        instance.reset();
        return fail("plugin '" + name + "' failed to initialise: " + why);
    }
    if (std::string clash = conflict_with_loaded(staged, name); !clash.empty()) {
        staged = StagingRegistry();  // the plugin's objects go before its code
        instance.reset();
        return fail(clash);
    }

    LoadedPlugin info;
    info.name = name;
    info.version = (*desc)->version ? (*desc)->version : "";
    info.path = path;
    adopt(staged, info);
    plugins_.push_back(std::move(info));
    instances_.push_back(std::move(instance));
    libraries_.push_back(std::move(lib));
    return true;
}

std::string PluginHost::conflict_with_loaded(const StagingRegistry& staged, const std::string& name) const {
    for (const auto& c : staged.commands) {
        if (find_command(c.name))
            return "plugin '" + name + "' adds a command '" + c.name + "' that another plugin has";
    }
    for (const auto& o : staged.report_options) {
        for (const auto& other : report_options_) {
            if (same_spelling(o, other.option))
                return "plugin '" + name + "' adds a report option " + report_option_spelling(o) +
                       " that plugin '" + other.plugin + "' has";
        }
    }
    for (const auto& a : staged.analyses) {
        for (const auto& other : analyses_) {
            if (other.spec.name == a.name)
                return "plugin '" + name + "' adds an analysis '" + a.name + "' that plugin '" +
                       other.plugin + "' has";
        }
    }
    return {};
}

void PluginHost::adopt(StagingRegistry& staged, LoadedPlugin& info) {
    const std::string& name = info.name;
    for (auto& d : staged.decoders) {
        info.decoders.emplace_back(d->format_name());
        decoders_.push_back({name, std::move(d)});
    }
    // A handler factory that makes nothing is kept (it may decline per trace); an annotator's is not.
    auto handlers = probe_factories(staged.handlers, true, "handler", name, info.path, diagnostics_,
                                    [&](const EventHandler& h) {
                                        info.handlers.emplace_back(h.name());
                                        info.handler_events.push_back(h.subscriptions());
                                    });
    for (auto& h : handlers) handlers_.push_back({name, std::move(h)});
    auto annotators = probe_factories(staged.annotators, false, "timeline annotator", name, info.path,
                                      diagnostics_, [&](const TimelineAnnotator& a) {
                                          info.annotators.emplace_back(a.name());
                                          info.annotator_events.push_back(a.subscriptions());
                                      });
    for (auto& a : annotators) annotators_.push_back({name, std::move(a)});
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
}

}  // namespace ringscope::plugin
