#include <ringscope/event_hook.hpp>

#include <cctype>

namespace ringscope {
namespace {

// strtok(3) over a copy of the text: a token is a run of non-delimiters after any delimiters; the
// delimiter that ends it is consumed. at(i) is the original character (NUL past the end), which
// trace-cmd inspects to tell which delimiter ended a token.
class Tokens {
  public:
    explicit Tokens(std::string_view s) : s_(s) {}
    std::optional<std::string> next(std::string_view delims) {
        while (pos_ < s_.size() && delims.find(s_[pos_]) != std::string_view::npos) ++pos_;
        if (pos_ >= s_.size()) return std::nullopt;
        const size_t start = pos_;
        while (pos_ < s_.size() && delims.find(s_[pos_]) == std::string_view::npos) ++pos_;
        end_ = pos_;
        if (pos_ < s_.size()) ++pos_;
        return std::string(s_.substr(start, end_ - start));
    }
    char after_token() const { return end_ < s_.size() ? s_[end_] : '\0'; }

  private:
    std::string_view s_;
    size_t pos_ = 0, end_ = 0;
};

}  // namespace

std::optional<EventHook> parse_event_hook(std::string_view text, std::string* warnings) {
    EventHook h;
    Tokens t(text);
    auto tok = t.next(":,");
    if (!tok) return std::nullopt;
    if (t.after_token() == ':') {
        h.start_system = *tok;
        if (!(tok = t.next(","))) return std::nullopt;
    }
    h.start_event = *tok;
    if (!(tok = t.next(",/"))) return std::nullopt;
    h.start_match = *tok;
    if (t.after_token() == ',') {
        if (!(tok = t.next("/"))) return std::nullopt;
        h.pid = *tok;
    }
    if (!(tok = t.next(":,"))) return std::nullopt;
    if (t.after_token() == ':') {
        h.end_system = *tok;
        if (!(tok = t.next(","))) return std::nullopt;
    }
    h.end_event = *tok;
    if (!(tok = t.next(","))) return std::nullopt;
    h.end_match = *tok;
    if (t.after_token() == ',') {
        if (!(tok = t.next(""))) return std::nullopt;
        h.flags = *tok;
    }
    for (char c : h.flags.value_or("")) {
        switch (std::tolower(static_cast<unsigned char>(c))) {
            case 'p':
                h.migrate = false;
                break;
            case 'g':
                h.global = true;
                break;
            case 's':
                break;
            default:
                if (warnings) *warnings += std::string("unknown flag ") + c + "\n";
        }
    }
    return h;
}

std::string event_hook_line(const EventHook& h) {
    auto or_null = [](const std::optional<std::string>& s) { return s ? *s : std::string("(null)"); };
    return "start " + or_null(h.start_system) + ":" + h.start_event + ":" + h.start_match + " (" +
           or_null(h.pid) + ") end " + or_null(h.end_system) + ":" + h.end_event + ":" + h.end_match + " (" +
           or_null(h.flags) + ")";
}

}  // namespace ringscope
