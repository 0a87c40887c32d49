#include <ringscope/error.hpp>
#include <ringscope/text_escape.hpp>

#include <cinttypes>
#include <cstdio>

namespace ringscope {

const char* errc_name(Errc e) noexcept {
    switch (e) {
        case Errc::ok: return "ok";
        case Errc::io: return "io";
        case Errc::truncated: return "truncated";
        case Errc::bad_magic: return "bad_magic";
        case Errc::bad_version: return "bad_version";
        case Errc::corrupt: return "corrupt";
        case Errc::decompress: return "decompress";
        case Errc::unsupported: return "unsupported";
        case Errc::no_format: return "no_format";
        case Errc::parse: return "parse";
        case Errc::invalid_argument: return "invalid_argument";
        case Errc::not_found: return "not_found";
        case Errc::plugin: return "plugin";
    }
    return "unknown";
}

std::string Error::to_string() const {
    std::string out;
    if (!file_.empty()) {
        out += escaped(file_, TextTarget::terminal);
        if (line_ > 0) {
            out += ':' + std::to_string(line_);
            if (column_ > 0) out += ':' + std::to_string(column_);
        }
        out += ": ";
    } else if (line_ > 0) {
        out += "line " + std::to_string(line_);
        if (column_ > 0) out += ", column " + std::to_string(column_);
        out += ": ";
    }
    if (offset_ != kNoOffset) {
        char buf[48];
        std::snprintf(buf, sizeof buf, "offset %" PRId64 " (0x%" PRIx64 "): ", offset_, offset_);
        out += buf;
    }
    // Messages quote names and text from files: no control sequence of theirs reaches a terminal.
    append_escaped(out, message_, TextTarget::terminal);
    return out;
}

}  // namespace ringscope
