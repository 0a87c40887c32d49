// `ringscope plugins [--json]`: what is loaded, from where, and what each plugin provides.
#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include <iostream>

#include <ringscope/text_escape.hpp>

#include "framework/cli/cli_context.hpp"
#include "framework/cli/option_parsing.hpp"

namespace po = boost::program_options;

namespace ringscope::cli {
namespace {

std::string match_text(const EventMatch& m) {
    if (m.system.empty() && m.name.empty()) return "*";
    return (m.system.empty() ? std::string("*") : m.system) + "/" +
           (m.name.empty() ? std::string("*") : m.name);
}

// Handlers and timeline annotators alike: [{"name", "events": ["sys/name", ...]}].
nlohmann::json named_subscriptions(const std::vector<std::string>& names,
                                   const std::vector<std::vector<EventMatch>>& events) {
    nlohmann::json out = nlohmann::json::array();
    for (size_t i = 0; i < names.size(); ++i) {
        nlohmann::json list = nlohmann::json::array();
        for (const auto& m : events[i]) list.push_back(match_text(m));
        out.push_back({{"name", names[i]}, {"events", list}});
    }
    return out;
}

// "  handler   NAME: sys/name ..." lines.
void print_subscriptions(const char* what, const std::vector<std::string>& names,
                         const std::vector<std::vector<EventMatch>>& events) {
    for (size_t i = 0; i < names.size(); ++i) {
        std::cout << "  " << what << names[i] << ":";
        for (const auto& m : events[i]) std::cout << " " << match_text(m);
        std::cout << "\n";
    }
}

}  // namespace

int run_plugins(CliContext& ctx, const std::vector<std::string>& args) {
    po::options_description opts("usage: ringscope plugins [--json]\n\nLists the loaded plugins.\n\nOptions");
    opts.add_options()("json", "print JSON")("help,h", "this text");
    po::variables_map vm;
    if (int rc = parse_options(ctx, "plugins", opts, {}, args, vm); rc >= 0) return rc;

    const auto& host = ctx.plugins();
    if (vm.count("json")) {
        nlohmann::json list = nlohmann::json::array();
        for (const auto& p : host.plugins()) {
            nlohmann::json options = nlohmann::json::array();
            for (const auto& o : host.print_options()) {
                if (o.plugin != p.name) continue;
                nlohmann::json j{{"name", o.option.plugin + ":" + o.option.name}, {"doc", o.option.doc}};
                if (o.option.takes_value)
                    j["default"] = o.option.default_value;
                else
                    j["default"] = o.option.set;
                options.push_back(std::move(j));
            }
            list.push_back({{"name", p.name},
                            {"version", p.version},
                            {"path", escaped(p.path, TextTarget::utf8)},
                            {"decoders", p.decoders},
                            {"handlers", named_subscriptions(p.handlers, p.handler_events)},
                            {"annotators", named_subscriptions(p.annotators, p.annotator_events)},
                            {"resolvers", p.resolvers},
                            {"commands", p.commands},
                            {"report_options", p.report_options},
                            {"print_options", options},
                            {"analyses", p.analyses}});
        }
        // File names in paths and messages need not be UTF-8; JSON must be.
        nlohmann::json errors = nlohmann::json::array();
        for (const auto& d : host.diagnostics()) errors.push_back(escaped(d, TextTarget::utf8));
        std::cout << nlohmann::json{{"plugins", list}, {"errors", errors}}.dump(2) << "\n";
        return kExitOk;
    }
    for (const auto& p : host.plugins()) {
        std::cout << p.name << " " << p.version << "  " << escaped(p.path, TextTarget::terminal) << "\n";
        for (const auto& d : p.decoders) std::cout << "  decoder   " << d << "\n";
        print_subscriptions("handler   ", p.handlers, p.handler_events);
        print_subscriptions("annotator ", p.annotators, p.annotator_events);
        for (const auto& r : p.resolvers) std::cout << "  resolver  " << r << "\n";
        for (const auto& c : p.commands) std::cout << "  command   " << c << "\n";
        for (const auto& o : p.report_options) std::cout << "  report    " << o << "\n";
        for (const auto& a : p.analyses) std::cout << "  analysis  " << a << "\n";
        for (const auto& o : host.print_options()) {
            if (o.plugin != p.name) continue;
            const std::string def = o.option.takes_value ? "\"" + o.option.default_value + "\""
                                    : o.option.set       ? "on"
                                                         : "off";
            std::cout << "  option    -O " << o.option.plugin << ":" << o.option.name << " (" << def
                      << "): " << o.option.doc << "\n";
        }
    }
    if (host.plugins().empty()) std::cout << "no plugins loaded\n";
    return kExitOk;
}

}  // namespace ringscope::cli
