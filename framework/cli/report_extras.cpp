#include "framework/cli/report_extras.hpp"

#include <algorithm>

#include <ringscope/filter.hpp>

namespace ringscope::cli {

std::optional<std::string> filter_test_text(const std::vector<std::pair<std::string, bool>>& filters,
                                            const std::vector<std::string>& pids,
                                            std::span<const EventType* const> types, std::string& error) {
    std::vector<std::string> texts;
    for (const auto& [text, neg] : filters) texts.push_back(text);
    if (!pids.empty()) {
        std::string text = ".*:";
        for (size_t i = 0; i < pids.size(); ++i)
            text += (i ? "||" : "") +
                    ("(common_pid==" + pids[i] + ")||(pid==" + pids[i] + ")||(next_pid==" + pids[i] + ")");
        texts.push_back(std::move(text));
    }
    std::string out;
    for (const auto& text : texts) {
        auto f = EventFilter::parse(text, types);
        if (!f) {
            error = "Error filtering: " + text + "\n" + f.error().to_string();
            return std::nullopt;
        }
        std::vector<uint32_t> ids = f->type_ids();
        std::sort(ids.begin(), ids.end());  // trace-cmd lists them by id, the highest first
        std::reverse(ids.begin(), ids.end());
        for (uint32_t id : ids) {
            const EventType* t = nullptr;
            for (const EventType* c : types)
                if (c && c->id == id) t = c;
            if (t) out += " '" + t->name + ": " + f->describe(id) + "'\n";
        }
    }
    return out;
}

std::optional<int> parse_verbose_level(std::string_view level) {
    static constexpr std::string_view kNames[] = {"none", "crit", "err", "warn", "info", "debug", "all"};
    if (level.empty()) return kVerboseInfo;
    for (int i = 0; i < 7; ++i)
        if (level == kNames[i] || (level.size() == 1 && level[0] == '0' + i)) return i;
    return std::nullopt;
}

std::string verbose_preamble(int file_version, const plugin::PluginHost* plugins) {
    std::string out = "version = " + std::to_string(file_version) + "\n";
    if (plugins)
        for (const auto& p : plugins->plugins()) out += "registering plugin: " + p.path + "\n";
    return out;
}

void print_dash_o_help(std::FILE* out, const plugin::PluginHost& plugins) {
    if (plugins.print_options().empty()) return;
    std::fputs("\nPrint options of the plugins (-O PLUGIN:NAME[=VALUE]; a boolean without VALUE toggles):\n",
               out);
    for (const auto& r : plugins.print_options()) {
        const PrintOption& o = r.option;
        std::string spelling = o.plugin + ":" + o.name + (o.takes_value ? "=VALUE" : "");
        std::string def = o.takes_value ? "default '" + o.default_value + "'"
                          : o.set       ? "default on"
                                        : "default off";
        std::fprintf(out, "  -O %-24s %s (%s)\n", spelling.c_str(), o.doc.c_str(), def.c_str());
    }
}

}  // namespace ringscope::cli
