#include "framework/cli/report_compat.hpp"

#include <cstdlib>

namespace ringscope::cli {

std::optional<Compat> parse_compat(std::string_view text) {
    if (text == "3.1") return Compat::v3_1;
    if (text == "3.4") return Compat::v3_4;
    return std::nullopt;
}

std::optional<Compat> default_compat(std::string& error) {
    const char* env = std::getenv("RINGSCOPE_COMPAT");
    if (!env || !*env) return Compat::v3_4;
    auto c = parse_compat(env);
    if (!c)
        error = "RINGSCOPE_COMPAT='" + std::string(env) +
                "': not a trace-cmd version ringscope prints as (3.1, 3.4)";
    return c;
}

void apply_compat(Compat compat, output::ReportStyle& style) {
    style.flags_column = compat == Compat::v3_4;
}

void apply_compat(Compat compat, engine::OpenOptions& options) {
    options.raw_symbol_addresses = compat == Compat::v3_4;
    options.kernel_sections = compat == Compat::v3_4;  // 3.1.6 skips MODULES_FILE, LAST_BOOT_INFO
}

std::vector<std::string> with_compat_option(Compat compat, const std::vector<std::string>& print_options) {
    std::vector<std::string> all = {compat == Compat::v3_4 ? "compat=3.4" : "compat=3.1"};
    all.insert(all.end(), print_options.begin(), print_options.end());
    return all;
}

}  // namespace ringscope::cli
