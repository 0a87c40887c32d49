#include "framework/filter/filter_regex.hpp"

#include <cstring>
#include <string>

namespace ringscope::filter {
namespace {

char lower(char c) {
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

}  // namespace

std::unique_ptr<Regex> Regex::compile(const std::string& pattern) {
    std::unique_ptr<Regex> r(new Regex());
    r->pattern_ = pattern;
    // regcomp decides validity, even for the literal fast path.
    if (regcomp(&r->re_, pattern.c_str(), REG_ICASE | REG_NOSUB) != 0) return nullptr;
    r->compiled_ = true;
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

Regex::~Regex() {
    if (compiled_) regfree(&re_);
}

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
    // regexec wants a NUL-terminated subject; field strings are views into records. REG_STARTEND
    // would do for glibc, but sanitizers' regexec interceptors still read up to a NUL (the fuzzer
    // found that), so the subject is copied into a reused buffer.
    thread_local std::string subject;
    subject.assign(s.data() ? s.data() : "", s.size());
    return regexec(&re_, subject.c_str(), 0, nullptr, 0) == 0;
}

}  // namespace ringscope::filter
