#include "framework/plugin/print_options.hpp"

#include <optional>

namespace ringscope::plugin {
namespace {

struct DashO {
    std::optional<std::string> plugin;
    std::string name;
    std::optional<std::string> value;
};

DashO parse(const std::string& arg) {
    // trace-cmd cuts the value at the first '=' before libtraceevent looks for "plugin:".
    DashO o;
    std::string key = arg;
    if (size_t eq = key.find('='); eq != std::string::npos) {
        o.value = key.substr(eq + 1);
        key.resize(eq);
    }
    if (size_t colon = key.find(':'); colon != std::string::npos) {
        o.plugin = key.substr(0, colon);
        key.erase(0, colon + 1);
    }
    o.name = std::move(key);
    return o;
}

void update(const PrintOption& decl, PrintOptionValue& v, const std::optional<std::string>& value) {
    if (!value) {
        if (!decl.takes_value) v.set = !v.set;
        return;
    }
    if (decl.takes_value) {
        v.value = *value;
        return;
    }
    if (*value == "1" || *value == "true")
        v.set = true;
    else if (*value == "0" || *value == "false")
        v.set = false;
}

}  // namespace

void apply_dash_o(std::vector<RegisteredPrintOption>& options, const std::vector<std::string>& args) {
    std::vector<DashO> given;
    for (const std::string& a : args) {
        DashO o = parse(a);
        bool replaced = false;
        for (DashO& g : given) {
            if (g.plugin == o.plugin && g.name == o.name) {
                g.value = o.value;
                replaced = true;
                break;
            }
        }
        if (!replaced) given.push_back(std::move(o));
    }
    for (RegisteredPrintOption& r : options) {
        *r.value = PrintOptionValue{r.option.set, r.option.default_value};
        for (const DashO& g : given) {
            if (g.plugin && *g.plugin == r.option.plugin && g.name == r.option.name) {
                update(r.option, *r.value, g.value);
                break;
            }
        }
        for (const DashO& g : given) {
            if (!g.plugin && g.name == r.option.name) {
                update(r.option, *r.value, g.value);
                break;
            }
        }
    }
}

}  // namespace ringscope::plugin
