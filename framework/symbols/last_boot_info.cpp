#include "framework/symbols/last_boot_info.hpp"

#include <algorithm>
#include <optional>

#include "framework/symbols/section_text.hpp"

namespace ringscope::symbols {

using section_text::error_at;

namespace {

bool is_current(std::string_view text) {
    const auto f = section_text::split_fields(text.substr(0, text.find('\n')));
    if (f.empty()) return false;
    if (f[0].text == "#" && f.size() > 1) return f[1].text == "Current" || f[1].text == "current";
    return f[0].text == "#Current" || f[0].text == "current" || f[0].text == "Current";
}

// "text delta:\tN" / "data delta:\tN": the delta, or nullopt when the line is not that one.
std::optional<int64_t> delta_line(std::string_view line, std::string_view what, std::optional<Error>& error,
                                  int number) {
    const auto f = section_text::split_fields(line);
    if (f.size() < 2 || f[0].text != what || f[1].text != "delta:") return std::nullopt;
    if (f.size() != 3) {
        error = error_at(number, line.size(), std::string(what) + " delta: one number expected");
        return std::nullopt;
    }
    auto v = section_text::parse_signed(f[2].text);
    if (!v) error = error_at(number, f[2].column, "'" + std::string(f[2].text) + "' is not a decimal number");
    return v;
}

Expected<LastBootInfo> parse_deltas(std::string_view text) {
    LastBootInfo info;
    info.form = LastBootInfo::Form::text_delta;
    std::optional<Error> error;
    bool text_seen = false;
    section_text::for_each_line(text, [&](std::string_view line, int number) {
        if (error || section_text::split_fields(line).empty()) return;
        if (auto v = delta_line(line, "text", error, number)) {
            info.text_delta = *v;
            text_seen = true;
        } else if (auto d = error ? std::nullopt : delta_line(line, "data", error, number)) {
            info.data_delta = *d;
        } else if (!error) {
            error = error_at(number, 0, "expected \"text delta:\" or \"data delta:\"");
        }
    });
    if (error) return std::move(*error);
    if (!text_seen) return error_at(1, 0, "no \"text delta:\" line");
    return info;
}

Expected<LastBootInfo> parse_addresses(std::string_view text) {
    LastBootInfo info;
    info.form = LastBootInfo::Form::kernel_address;
    std::optional<Error> error;
    bool kernel_seen = false;
    section_text::for_each_line(text, [&](std::string_view line, int number) {
        if (error) return;
        const auto f = section_text::split_fields(line);
        if (f.empty()) return;
        if (f.size() != 2) {
            error = error_at(number, f.back().column, "expected \"ADDRESS\\tNAME\"");
            return;
        }
        auto addr = section_text::parse_hex(f[0].text);
        if (!addr) {
            error = error_at(number, f[0].column, "'" + std::string(f[0].text) + "' is not a hex address");
            return;
        }
        if (f[1].text == "[kernel]") {
            info.kernel = *addr;
            kernel_seen = true;
            return;
        }
        std::string name(f[1].text);
        info.modules.push_back({name, "[" + name + "]", *addr});
    });
    if (error) return std::move(*error);
    if (!kernel_seen) return error_at(1, 0, "no \"ADDRESS\\t[kernel]\" line");
    std::sort(info.modules.begin(), info.modules.end(),
              [](const PreviousModule& a, const PreviousModule& b) { return a.address < b.address; });
    return info;
}

}  // namespace

Expected<LastBootInfo> LastBootInfo::parse(std::string_view text) {
    if (is_current(text)) return LastBootInfo{};
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return error_at(1, 0, "empty");
    if (text.compare(first, 5, "text ") == 0 || text.compare(first, 5, "data ") == 0)
        return parse_deltas(text);
    return parse_addresses(text);
}

}  // namespace ringscope::symbols
