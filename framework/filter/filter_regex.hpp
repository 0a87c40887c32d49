// POSIX basic regexes, case-insensitive, as libtraceevent compiles them (regcomp with
// REG_ICASE|REG_NOSUB). Plain strings, optionally anchored (`^text`, `text$`), take an
// allocation-free path; the others go through regexec with REG_STARTEND (no copy of the subject).
#pragma once

#include <regex.h>

#include <memory>
#include <string>
#include <string_view>

#include <ringscope/error.hpp>

namespace ringscope::filter {

class Regex {
  public:
    // nullptr when regcomp refuses the pattern.
    static std::unique_ptr<Regex> compile(const std::string& pattern);
    ~Regex();
    Regex(const Regex&) = delete;
    Regex& operator=(const Regex&) = delete;

    // Unanchored search, like regexec.
    bool search(std::string_view subject) const noexcept;
    const std::string& pattern() const noexcept { return pattern_; }

  private:
    Regex() = default;
    std::string pattern_;
    std::string literal_;  // lower-cased pattern when it is a plain string, maybe anchored
    bool is_literal_ = false;
    bool anchor_start_ = false;  // `^text`
    bool anchor_end_ = false;    // `text$`
    bool compiled_ = false;
    regex_t re_{};
};

}  // namespace ringscope::filter
