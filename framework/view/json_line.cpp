#include "framework/view/json_line.hpp"

#include <nlohmann/json.hpp>

namespace ringscope::view {
namespace {

// What a byte of an ASCII line becomes: nullptr when written as it is.
const char* escape_of(unsigned char c, char (&buf)[7]) {
    static constexpr char hex[] = "0123456789abcdef";
    switch (c) {
        case '"':
            return "\\\"";
        case '\\':
            return "\\\\";
        case '\n':
            return "\\n";
        case '\r':
            return "\\r";
        case '\t':
            return "\\t";
        case '\b':
            return "\\b";
        case '\f':
            return "\\f";
        case '<':
            return "\\u003c";
        default:
            break;
    }
    if (c >= 0x20) return nullptr;
    buf[0] = '\\', buf[1] = 'u', buf[2] = '0', buf[3] = '0', buf[4] = hex[c >> 4], buf[5] = hex[c & 15];
    buf[6] = 0;
    return buf;
}

}  // namespace

void append_script_safe(std::string& out, std::string_view text) {
    for (size_t lt; (lt = text.find('<')) != std::string_view::npos; text.remove_prefix(lt + 1)) {
        out.append(text.data(), lt);
        out += "\\u003c";
    }
    out.append(text.data(), text.size());
}

void append_json_line(std::string& out, std::string_view line) {
    for (char c : line) {
        if (static_cast<unsigned char>(c) >= 0x80) {
            const nlohmann::json j(std::string{line});
            append_script_safe(out, j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
            return;
        }
    }
    out.reserve(out.size() + line.size() + 2);
    out += '"';
    size_t run = 0;  // start of the bytes written as they are
    char buf[7];
    for (size_t i = 0; i < line.size(); ++i) {
        const auto c = static_cast<unsigned char>(line[i]);
        if (c >= 0x20 && c != '"' && c != '\\' && c != '<') continue;
        const char* e = escape_of(c, buf);
        if (!e) continue;
        out.append(line.data() + run, i - run);
        out += e;
        run = i + 1;
    }
    out.append(line.data() + run, line.size() - run);
    out += '"';
}

}  // namespace ringscope::view
