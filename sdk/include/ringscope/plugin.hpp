// The plugin side of the SDK: what a plugin registers, and the one macro that exports it.
//
//   class MyPlugin : public ringscope::Plugin {
//       void register_into(ringscope::PluginRegistry& r) override { r.add_handler(...); }
//   };
//   RINGSCOPE_PLUGIN("my-plugin", "1.0", MyPlugin)
#pragma once

#include <cstdint>
#include <cstdio>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <boost/dll/alias.hpp>

#include <ringscope/analysis.hpp>
#include <ringscope/decoder.hpp>
#include <ringscope/handler.hpp>
#include <ringscope/resolver.hpp>
#include <ringscope/timeline.hpp>
#include <ringscope/version.hpp>

namespace ringscope {

// What a plugin's command gets besides its arguments.
class CommandEnv {
public:
    virtual ~CommandEnv() = default;
    virtual ResolverService& resolvers() = 0;
    virtual std::FILE* out() = 0;
    virtual std::FILE* err() = 0;
};

// A subcommand a plugin adds: `ringscope NAME ARGS...` (e.g. `ringscope ipt dump FILE`).
// run() returns the exit code: 0 ok, 1 runtime error, 2 usage error.
struct Command {
    std::string name;
    std::string summary;
    std::function<int(const std::vector<std::string>& args, CommandEnv& env)> run;
};

using HandlerFactory = std::function<std::unique_ptr<EventHandler>()>;

// An option a plugin adds to `ringscope report` (trace-cmd's -w, --profile): when given, a handler made
// by the factory sees every event of the run, may append to event lines, and prints a summary after the
// last event (or instead of the events when it replaces them, as --profile does).
struct ReportOption {
    std::string long_name;  // "profile" for --profile; may be empty when short_name is set
    char short_name = 0;    // 'w' for -w; 0 for none
    bool takes_value = false;
    bool replaces_events = false;
    bool single_input = false;  // refused with several input files (trace-cmd's -w)
    std::string doc;
    std::function<std::unique_ptr<EventHandler>(std::string_view value)> factory;
};

// A setting of a plugin's printing (libtraceevent's tep_plugin_option), changed per run with
// `ringscope report -O [PLUGIN:]NAME[=VALUE]` as trace-cmd does: a boolean toggles without VALUE and
// takes "1"/"true"/"0"/"false"; a string option takes VALUE.
struct PrintOption {
    std::string plugin;  // the name before ':' in -O (the function plugin's options use "ftrace")
    std::string name;
    std::string doc;
    bool set = false;            // a boolean's default
    bool takes_value = false;    // a string option rather than a boolean
    std::string default_value;   // a string option's default
};

// The current setting of a PrintOption. The framework owns it and sets it before a run's first
// event; a printer keeps the reference add_print_option gave and reads it while printing.
struct PrintOptionValue {
    bool set = false;
    std::string value;
};

class PluginRegistry {
public:
    virtual ~PluginRegistry() = default;
    virtual void add_decoder(std::shared_ptr<Decoder> decoder) = 0;
    // A factory, since handlers keep per-run state; the framework makes one per run.
    virtual void add_handler(HandlerFactory factory) = 0;
    virtual void add_resolver(std::string domain, std::shared_ptr<const SymbolResolver> resolver) = 0;
    virtual void add_command(Command command) = 0;
    // An analysis `ringscope run` can name, its parameters validated against spec.params.
    virtual void add_analysis(AnalysisSpec spec) = 0;
    virtual void add_report_option(ReportOption option) = 0;
    // Appended after the ABI 2 methods, so plugins built before it keep their vtable layout. The
    // framework's registry overrides it; another registry (a test double) keeps the default.
    virtual const PrintOptionValue& add_print_option(PrintOption option) {
        static std::deque<PrintOptionValue> defaults;
        return defaults.emplace_back(PrintOptionValue{option.set, option.default_value});
    }
    // Appended after add_print_option (same reason): what the plugin adds to `ringscope view`'s
    // timeline (ringscope/timeline.hpp). Registries that do not draw timelines ignore it.
    virtual void add_timeline_annotator(TimelineAnnotatorFactory factory) { (void)factory; }
};

class Plugin {
public:
    virtual ~Plugin() = default;
    virtual void register_into(PluginRegistry& registry) = 0;
};

// The exported entry. `abi` stays the first member in every ABI so the loader can read it before
// it trusts anything else in the plugin.
struct PluginDescriptor {
    uint32_t abi;
    const char* name;
    const char* version;
    Plugin* (*create)();
};

inline constexpr const char* kPluginEntrySymbol = "ringscope_plugin_entry";

}  // namespace ringscope

#define RINGSCOPE_PLUGIN(NAME, VERSION, CLASS)                                                        \
    namespace ringscope_plugin_detail {                                                              \
    ::ringscope::Plugin* create_plugin() { return new CLASS(); }                                     \
    const ::ringscope::PluginDescriptor descriptor{RINGSCOPE_SDK_ABI, NAME, VERSION, &create_plugin}; \
    }                                                                                                \
    BOOST_DLL_ALIAS(ringscope_plugin_detail::descriptor, ringscope_plugin_entry)
