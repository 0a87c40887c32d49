#include "framework/format/text_maps.hpp"

#include <cctype>
#include <cstdlib>
#include <string>

namespace ringscope::format {
namespace {

// Calls f(line, line_number) for every non-empty line (strtok(text, "\n") semantics).
template <class F>
Status for_lines(std::string_view text, F&& f) {
    int lineno = 0;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t nl = text.find('\n', pos);
        std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
        ++lineno;
        pos = nl == std::string_view::npos ? text.size() : nl + 1;
        if (line.empty()) continue;
        if (Status st = f(line, lineno); !st) return st;
    }
    return Status::success();
}

}  // namespace

Status parse_printk_formats(std::string_view text, PrintkMap& out) {
    return for_lines(text, [&](std::string_view line, int lineno) -> Status {
        // strtok(line, ":"): leading colons are skipped, the address ends at the next one
        size_t start = line.find_first_not_of(':');
        if (start == std::string_view::npos) return Error(Errc::parse, "printk format with empty entry").at_line(lineno);
        size_t colon = line.find(':', start);
        if (colon == std::string_view::npos)
            return Error(Errc::parse, "printk format line without ':'").at_line(lineno, static_cast<int>(line.size()) + 1);
        std::string addr_str(line.substr(start, colon - start));
        uint64_t addr = std::strtoull(addr_str.c_str(), nullptr, 16);
        std::string_view fmt = line.substr(colon + 1);
        if (!fmt.empty()) fmt.remove_prefix(1);  // the space after ':'
        std::string s(fmt);
        if (!s.empty() && s[0] == '"') s.erase(0, 1);
        if (!s.empty() && s.back() == '"') {
            s.pop_back();
            if (s.size() >= 2 && s.compare(s.size() - 2, 2, "\\n") == 0) s.resize(s.size() - 2);
        }
        out.emplace(addr, std::move(s));
        return Status::success();
    });
}

Status parse_saved_cmdlines(std::string_view text, CmdlineMap& out) {
    return for_lines(text, [&](std::string_view line, int lineno) -> Status {
        // sscanf("%d %m[^\n]s"): a number, blanks, then the rest of the line
        std::string l(line);
        const char* p = l.c_str();
        char* end = nullptr;
        long pid = std::strtol(p, &end, 10);
        if (end == p) return Error(Errc::parse, "saved cmdline without a pid").at_line(lineno, 1);
        while (*end && std::isspace(static_cast<unsigned char>(*end))) ++end;
        if (!*end) return Error(Errc::parse, "saved cmdline without a comm").at_line(lineno, static_cast<int>(end - p) + 1);
        out.emplace(static_cast<int>(pid), std::string(end));
        return Status::success();
    });
}

}  // namespace ringscope::format
