#include "framework/filter/filter_regex.hpp"

#include <re2/re2.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace ringscope::filter {
namespace {

char lower(char c) {
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

// One byte as RE2 reads it literally, inside or outside a bracket expression.
void append_literal(std::string& out, unsigned char c) {
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') {
        out.push_back(static_cast<char>(c));
        return;
    }
    char hex[8];
    std::snprintf(hex, sizeof hex, "\\x%02x", c);
    out += hex;
}

// A bracket expression from P[I] (just after `[`) to its `]`, as POSIX reads it: a backslash is
// an ordinary character, `]` first is literal, `[:class:]` `[=c=]` `[.c.]`. Returns false when it
// does not end or a range or class is invalid; I is left after the `]`.
bool translate_bracket(std::string_view p, size_t& i, std::string& out) {
    static constexpr const char* kClasses[] = {"alpha", "upper", "lower", "digit", "xdigit", "space",
                                               "print", "punct", "graph", "cntrl", "blank",  "alnum"};
    out += '[';
    if (i < p.size() && p[i] == '^') {
        out += '^';
        ++i;
    }
    bool first = true;
    int prev = -1;  // the last single character, a range's possible start
    while (i < p.size()) {
        const char c = p[i];
        if (c == ']' && !first) {
            ++i;
            out += ']';
            return true;
        }
        first = false;
        if (c == '[' && i + 1 < p.size() && (p[i + 1] == ':' || p[i + 1] == '=' || p[i + 1] == '.')) {
            const char kind = p[i + 1];
            const size_t end = p.find(std::string{kind, ']'}, i + 2);
            if (end == std::string_view::npos) return false;
            const std::string_view name = p.substr(i + 2, end - i - 2);
            i = end + 2;
            if (kind == ':') {
                bool known = false;
                for (const char* k : kClasses) known = known || name == k;
                if (!known) return false;
                out += "[:" + std::string(name) + ":]";
                prev = -1;
                continue;
            }
            // Equivalence classes and collating elements of one character are that character.
            if (name.size() != 1) return false;
            append_literal(out, static_cast<unsigned char>(name[0]));
            prev = static_cast<unsigned char>(name[0]);
            continue;
        }
        if (c == '-' && prev >= 0 && i + 1 < p.size() && p[i + 1] != ']') {
            unsigned char hi = static_cast<unsigned char>(p[i + 1]);
            i += 2;
            if (hi == '[' && i < p.size() && (p[i] == '.' || p[i] == '=')) {
                const char kind = p[i];
                const size_t end = p.find(std::string{kind, ']'}, i + 1);
                if (end == std::string_view::npos || end != i + 2) return false;
                hi = static_cast<unsigned char>(p[i + 1]);
                i = end + 2;
            }
            if (hi < prev) return false;
            out += '-';
            append_literal(out, hi);
            prev = -1;
            continue;
        }
        append_literal(out, static_cast<unsigned char>(c));
        prev = static_cast<unsigned char>(c);
        ++i;
    }
    return false;
}

// A BRE, read as glibc's regcomp reads it (RE_SYNTAX_POSIX_BASIC with GNU's `\+ \? \|`),
// written out in RE2's syntax.
class BreTranslator {
  public:
    explicit BreTranslator(std::string_view p) : p_(p) {}

    std::optional<std::string> run() {
        while (i_ < p_.size() && !bad_) {
            const char c = p_[i_++];
            if (c == '\\')
                escape();
            else
                plain(c);
        }
        if (bad_ || !groups_.empty()) return std::nullopt;
        return out_;
    }

  private:
    void start_atom() {
        atom_ = out_.size();
        repeated_ = false;
    }
    void literal(char c) {
        start_atom();
        append_literal(out_, static_cast<unsigned char>(c));
    }
    // A repetition of the last atom: literal where there is none (`*` first), an error on a
    // repetition (REG_BADRPT).
    void repeat(const std::string& op) {
        bad_ = bad_ || repeated_;
        out_ += op;
        repeated_ = true;
    }
    // After `\(` and `\|`, `^` is an anchor.
    void branch_start() {
        atom_ = std::string::npos;
        if (i_ < p_.size() && p_[i_] == '^') {
            out_ += '^';
            ++i_;
        }
    }
    void plain(char c) {
        switch (c) {
            case '[':
                start_atom();
                bad_ = !translate_bracket(p_, i_, out_);
                return;
            case '*':
                if (atom_ == std::string::npos)
                    literal(c);
                else
                    repeat("*");
                return;
            case '^':  // an anchor only first (after `\(` and `\|` too, see branch_start)
                if (i_ == 1)
                    out_ += '^';
                else
                    literal(c);
                return;
            case '$':  // an anchor only last, or before `\)` or `\|`
                if (i_ == p_.size() || (p_.substr(i_, 2) == "\\)" && !groups_.empty()) ||
                    p_.substr(i_, 2) == "\\|") {
                    out_ += '$';
                    atom_ = std::string::npos;
                } else {
                    literal(c);
                }
                return;
            case '.':
                start_atom();
                out_ += '.';
                return;
            default:
                literal(c);
        }
    }
    void escape() {
        if (i_ >= p_.size()) {
            bad_ = true;  // a trailing backslash
            return;
        }
        const char d = p_[i_++];
        switch (d) {
            case '(':
                groups_.push_back(out_.size());
                out_ += "(?:";
                branch_start();
                return;
            case ')':
                if (groups_.empty()) {
                    bad_ = true;
                    return;
                }
                out_ += ')';
                atom_ = groups_.back();
                repeated_ = false;
                groups_.pop_back();
                return;
            case '|':
                out_ += '|';
                branch_start();
                return;
            case '{':
                interval();
                return;
            case '+':
            case '?':
                if (atom_ == std::string::npos)
                    literal(d);
                else
                    repeat(std::string(1, d));
                return;
            case 'w':
            case 'W':
            case 's':
            case 'S':
                start_atom();
                out_ += {'\\', d};
                return;
            case 'b':
            case 'B':
                out_ += {'\\', d};
                atom_ = std::string::npos;
                return;
            case '`':
            case '\'':
                out_ += d == '`' ? "\\A" : "\\z";
                atom_ = std::string::npos;
                return;
            case '<':
            case '>':
                bad_ = true;  // word starts and ends: RE2 has no such assertion
                return;
            default:
                bad_ = d >= '1' && d <= '9';  // back-references
                literal(d);
        }
    }
    // `\{m\}`, `\{m,\}`, `\{,n\}`, `\{m,n\}` after an atom.
    void interval() {
        const size_t close = p_.find("\\}", i_);
        if (atom_ == std::string::npos || close == std::string_view::npos) {
            bad_ = true;
            return;
        }
        const std::string_view body = p_.substr(i_, close - i_);
        i_ = close + 2;
        auto number = [](std::string_view s, long& v) {
            if (s.empty() || s.size() > 5) return false;
            v = 0;
            for (char ch : s) {
                if (ch < '0' || ch > '9') return false;
                v = v * 10 + (ch - '0');
            }
            return true;
        };
        const size_t comma = body.find(',');
        long lo = 0, hi = -1;
        bool ok = true;
        if (comma == std::string_view::npos) {
            ok = number(body, lo);
            hi = lo;
        } else {
            ok = (comma == 0 || number(body.substr(0, comma), lo)) &&
                 (comma + 1 == body.size() || number(body.substr(comma + 1), hi));
        }
        if (!ok || (hi >= 0 && hi < lo)) {
            bad_ = true;
            return;
        }
        std::string op = "{" + std::to_string(lo);
        if (comma != std::string_view::npos) op += "," + (hi >= 0 ? std::to_string(hi) : std::string());
        repeat(op + "}");
    }

    std::string_view p_;
    size_t i_ = 0;
    std::string out_;
    // Where the last atom began in out_ (npos: none yet in this branch, so `*` is literal there),
    // and whether it already carries a repetition.
    size_t atom_ = std::string::npos;
    bool repeated_ = false;
    bool bad_ = false;
    std::vector<size_t> groups_;  // where each open `\(` began in out_
};

}  // namespace

std::optional<std::string> bre_to_re2(std::string_view p) {
    return BreTranslator(p).run();
}

std::unique_ptr<Regex> Regex::compile(const std::string& pattern) {
    std::unique_ptr<Regex> r(new Regex());
    r->pattern_ = pattern;
    // RE2 decides validity, even for the literal fast path.
    const std::optional<std::string> translated = bre_to_re2(pattern);
    if (!translated) return nullptr;
    RE2::Options opts;
    opts.set_encoding(RE2::Options::EncodingLatin1);  // bytes, as glibc in the C locale
    opts.set_case_sensitive(false);
    opts.set_dot_nl(true);  // without REG_NEWLINE `.` matches a newline too
    opts.set_log_errors(false);
    opts.set_max_mem(kMaxProgramMemory);
    r->re_ = std::make_unique<RE2>(*translated, opts);
    if (!r->re_->ok()) return nullptr;
    // Only plain ASCII letters, digits and a few harmless punctuation marks are literal in a BRE;
    // `^` first and `$` last are anchors.
    std::string_view body = pattern;
    const bool start = !body.empty() && body.front() == '^';
    if (start) body.remove_prefix(1);
    const bool end = !body.empty() && body.back() == '$';
    if (end) body.remove_suffix(1);
    bool literal = true;
    for (char c : body) {
        const unsigned char u = static_cast<unsigned char>(c);
        if (u >= 0x80 || std::strchr(".[]*^$\\", c) != nullptr || u < 0x20) {
            literal = false;
            break;
        }
    }
    if (literal) {
        r->is_literal_ = true;
        r->anchor_start_ = start;
        r->anchor_end_ = end;
        r->literal_.reserve(body.size());
        for (char c : body) r->literal_.push_back(lower(c));
    }
    return r;
}

Regex::~Regex() = default;

bool Regex::search(std::string_view s) const noexcept {
    if (is_literal_) {
        const size_t m = literal_.size();
        if (s.size() < m) return false;
        auto equal_at = [&](size_t i) {
            for (size_t k = 0; k < m; ++k)
                if (lower(s[i + k]) != literal_[k]) return false;
            return true;
        };
        if (anchor_start_ && anchor_end_) return s.size() == m && equal_at(0);
        if (anchor_start_) return equal_at(0);
        if (anchor_end_) return equal_at(s.size() - m);
        for (size_t i = 0; i + m <= s.size(); ++i)
            if (equal_at(i)) return true;
        return false;
    }
    // RE2 reads exactly the view (no NUL needed) and never allocates per match once warmed up.
    return RE2::PartialMatch(re2::StringPiece(s.data(), s.size()), *re_);
}

}  // namespace ringscope::filter
