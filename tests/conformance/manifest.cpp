#include "manifest.hpp"

#include <charconv>
#include <fstream>

namespace ringscope::conformance {
namespace {

std::vector<std::string> split_tabs(const std::string& line) {
    std::vector<std::string> fields;
    size_t start = 0;
    for (;;) {
        size_t tab = line.find('\t', start);
        fields.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
        if (tab == std::string::npos) break;
        start = tab + 1;
    }
    return fields;
}

Case broken(const std::string& where, const std::string& why) {
    Case c;
    c.name = "manifest_error_" + where;
    c.error = where + ": " + why;
    return c;
}

}  // namespace

bool split_args(std::string_view text, std::vector<std::string>& words, std::string& error) {
    words.clear();
    size_t i = 0;
    while (i < text.size()) {
        if (text[i] == ' ') {
            ++i;
            continue;
        }
        std::string word;
        if (text[i] == '\'') {
            size_t close = text.find('\'', i + 1);
            if (close == std::string_view::npos) {
                error = "column " + std::to_string(i + 1) + ": unterminated single quote";
                return false;
            }
            word.assign(text.substr(i + 1, close - i - 1));
            i = close + 1;
            if (i < text.size() && text[i] != ' ') {
                error = "column " + std::to_string(i + 1) + ": text right after a closing quote";
                return false;
            }
        } else {
            size_t end = text.find(' ', i);
            if (end == std::string_view::npos) end = text.size();
            word.assign(text.substr(i, end - i));
            if (word.find('\'') != std::string::npos) {
                error = "column " + std::to_string(i + 1 + word.find('\'')) + ": quote inside a word";
                return false;
            }
            i = end;
        }
        words.push_back(std::move(word));
    }
    return true;
}

std::vector<Case> load_cases(const std::string& path, bool examples, const std::string& raw_manifest) {
    std::map<std::string, std::string> raw;
    if (!raw_manifest.empty()) {
        std::ifstream in(raw_manifest);
        std::string line;
        while (std::getline(in, line)) {
            if (line.empty() || line[0] == '#') continue;
            auto f = split_tabs(line);
            if (f.size() == 2) raw[f[0]] = f[1];
        }
    }

    std::vector<Case> cases;
    std::ifstream in(path);
    if (!in) return {broken("open", path + ": cannot open the manifest")};
    std::string line;
    size_t line_no = 0;
    while (std::getline(in, line)) {
        ++line_no;
        if (line.empty() || line[0] == '#') continue;
        const std::string where = path + ":" + std::to_string(line_no);
        auto f = split_tabs(line);
        if (f.size() != 4) {
            cases.push_back(
                broken("line" + std::to_string(line_no),
                       where + ": expected 4 tab-separated fields, got " + std::to_string(f.size())));
            continue;
        }
        Case c;
        c.name = f[0];
        std::string args_text;
        if (examples) {
            c.program = f[1];
            args_text = f[2];
            c.expected = f[3];
        } else {
            args_text = f[1];
            c.expected = f[2];
            const std::string& code = f[3];
            auto [ptr, ec] = std::from_chars(code.data(), code.data() + code.size(), c.exit_code);
            if (ec != std::errc() || ptr != code.data() + code.size()) {
                c.error = where + ": bad exit code '" + code + "'";
            }
        }
        std::string err;
        if (!split_args(args_text, c.args, err)) c.error = where + ": args " + err;
        if (auto it = raw.find(c.name); it != raw.end()) c.raw = it->second;
        cases.push_back(std::move(c));
    }
    if (cases.empty()) return {broken("empty", path + ": no cases")};
    return cases;
}

std::string test_name(const std::string& case_name) {
    std::string out;
    for (char ch : case_name) {
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
        out += ok ? ch : '_';
    }
    return out;
}

void PrintTo(const Case& c, std::ostream* os) {
    *os << c.name << " (" << (c.program.empty() ? std::string("report") : c.program);
    for (const auto& a : c.args) *os << ' ' << a;
    *os << ")";
}

}  // namespace ringscope::conformance
