#include "framework/format/state_bits.hpp"

#include <cctype>

namespace ringscope::sched {
namespace {

// Recursive descent over the text, lowest precedence first (C's: | ^ & << >> + -).
class ConstantParser {
  public:
    explicit ConstantParser(std::string_view s) : s_(s) {}
    std::optional<uint64_t> parse() { return binary(0); }

  private:
    void skip() {
        while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
    }
    // The operator at the cursor of precedence level `level`, without consuming it ("" if none).
    std::string_view op(int level) {
        skip();
        static constexpr std::string_view kLevels[][2] = {
            {"|", ""}, {"^", ""}, {"&", ""}, {"<<", ">>"}, {"+", "-"}};
        for (std::string_view o : kLevels[level]) {
            if (o.empty() || s_.substr(i_, o.size()) != o) continue;
            // "|" is not "||", "&" not "&&"
            if (o.size() == 1 && i_ + 1 < s_.size() && s_[i_ + 1] == o[0]) return {};
            return o;
        }
        return {};
    }
    std::optional<uint64_t> binary(int level) {
        if (level == 5) return primary();
        auto left = binary(level + 1);
        while (left) {
            const std::string_view o = op(level);
            if (o.empty()) break;
            i_ += o.size();
            auto right = binary(level + 1);
            if (!right) return std::nullopt;
            if (o == "|")
                *left |= *right;
            else if (o == "^")
                *left ^= *right;
            else if (o == "&")
                *left &= *right;
            else if (o == "<<")
                *left = *right < 64 ? *left << *right : 0;
            else if (o == ">>")
                *left = *right < 64 ? *left >> *right : 0;
            else if (o == "+")
                *left += *right;
            else
                *left -= *right;
        }
        return left;
    }
    std::optional<uint64_t> primary() {
        skip();
        if (i_ >= s_.size()) return std::nullopt;
        if (s_[i_] == '(') {
            ++i_;
            auto v = binary(0);
            skip();
            if (!v || i_ >= s_.size() || s_[i_] != ')') return std::nullopt;
            ++i_;
            return v;
        }
        if (!std::isdigit(static_cast<unsigned char>(s_[i_]))) return std::nullopt;
        int base = 10;
        if (s_[i_] == '0' && i_ + 1 < s_.size() && (s_[i_ + 1] == 'x' || s_[i_ + 1] == 'X')) {
            base = 16;
            i_ += 2;
        }
        uint64_t v = 0;
        size_t digits = 0;
        for (; i_ < s_.size(); ++i_, ++digits) {
            const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(s_[i_])));
            const int d = c >= '0' && c <= '9'                 ? c - '0'
                          : base == 16 && c >= 'a' && c <= 'f' ? c - 'a' + 10
                                                               : -1;
            if (d < 0) break;
            v = v * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
        }
        while (i_ < s_.size() && (s_[i_] == 'u' || s_[i_] == 'U' || s_[i_] == 'l' || s_[i_] == 'L')) ++i_;
        if (digits == 0) return std::nullopt;
        return v;
    }

    std::string_view s_;
    size_t i_ = 0;
};

constexpr std::string_view kField = "REC->prev_state &";

}  // namespace

std::optional<uint64_t> eval_constant(std::string_view text) {
    return ConstantParser(text).parse();
}

StateBits state_bits_from_print_fmt(std::string_view fmt) {
    StateBits bits;
    const size_t flags = fmt.find("__print_flags(");
    if (flags != std::string_view::npos) {
        const std::string_view arg = fmt.substr(flags + 14);
        if (arg.starts_with(kField)) bits.mask = eval_constant(arg.substr(kField.size()));
    }
    const size_t plus = fmt.find("? \"+\"");
    if (plus != std::string_view::npos) {
        const size_t field = fmt.rfind(kField, plus);
        if (field != std::string_view::npos)
            bits.preempt = eval_constant(fmt.substr(field + kField.size(), plus - field - kField.size()));
    }
    return bits;
}

}  // namespace ringscope::sched
