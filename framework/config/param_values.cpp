#include "framework/config/param_values.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace ringscope::config {

const char* param_type_name(ParamType type) noexcept {
    switch (type) {
        case ParamType::integer:
            return "integer";
        case ParamType::number:
            return "number";
        case ParamType::boolean:
            return "boolean";
        case ParamType::string:
            return "string";
        case ParamType::duration:
            return "duration";
    }
    return "?";
}

std::optional<std::string> canonical_param(ParamType type, std::string_view text) {
    switch (type) {
        case ParamType::string:
            return std::string(text);
        case ParamType::boolean:
            if (text == "true" || text == "yes" || text == "on") return std::string("true");
            if (text == "false" || text == "no" || text == "off") return std::string("false");
            return std::nullopt;
        case ParamType::integer: {
            int64_t v = 0;
            auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
            if (ec != std::errc() || p != text.data() + text.size() || text.empty()) return std::nullopt;
            return std::to_string(v);
        }
        case ParamType::number: {
            std::string s(text);
            char* end = nullptr;
            errno = 0;
            double v = std::strtod(s.c_str(), &end);
            if (s.empty() || *end || errno || !std::isfinite(v)) return std::nullopt;
            return s;
        }
        case ParamType::duration: {
            uint64_t v = 0;
            auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
            if (ec != std::errc() || p == text.data()) return std::nullopt;
            std::string_view unit(p, text.data() + text.size() - p);
            uint64_t mul = unit.empty() || unit == "ns" ? 1
                           : unit == "us"               ? 1000
                           : unit == "ms"               ? 1000000
                           : unit == "s"                ? 1000000000
                                                        : 0;
            if (!mul || v == 0 || v > UINT64_MAX / mul) return std::nullopt;
            return std::to_string(v * mul);
        }
    }
    return std::nullopt;
}

}  // namespace ringscope::config
