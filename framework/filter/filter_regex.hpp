// POSIX basic regexes, case-insensitive, as libtraceevent compiles them (regcomp with
// REG_ICASE|REG_NOSUB), matched by RE2: the BRE is translated to RE2's syntax, so matching is
// linear in the subject and compiling takes at most kMaxProgramMemory, whatever the pattern
// (glibc's regexec crashed on back-references and its regcomp took 3.8 GB for nested bounded
// repeats). Plain strings, optionally anchored (`^text`, `text$`), take an allocation-free path.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace re2 {
class RE2;
}

namespace ringscope::filter {

class Regex {
  public:
    // What RE2 may use to compile one pattern; a pattern that needs more is refused.
    static constexpr int64_t kMaxProgramMemory = int64_t(8) << 20;

    // nullptr when the pattern is not a valid BRE, or uses what RE2 cannot match in linear time
    // (back-references `\1`..`\9`, `\<`, `\>`), or repeats more than 1000 times, or needs more
    // than kMaxProgramMemory.
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
    std::unique_ptr<re2::RE2> re_;
};

// The RE2 pattern that matches what glibc's regcomp(BRE) matches, or nullopt when the BRE is
// invalid or has no RE2 equivalent. Exposed for the tests.
std::optional<std::string> bre_to_re2(std::string_view bre);

}  // namespace ringscope::filter
