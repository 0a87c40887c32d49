#include "framework/format/printf_format.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

namespace ringscope::format {

Spec parse_spec(std::string_view c) {
    Spec s;
    size_t i = 1;  // past '%'
    for (; i < c.size(); ++i) {
        char ch = c[i];
        if (ch == '-')
            s.left = true;
        else if (ch == '0')
            s.zero = true;
        else if (ch == '+')
            s.plus = true;
        else if (ch == ' ')
            s.space = true;
        else if (ch == '#')
            s.alt = true;
        else
            break;
    }
    if (i < c.size() && c[i] == '*') {
        s.width = -2;
        ++i;
    } else if (i < c.size() && c[i] >= '1' && c[i] <= '9') {
        s.width = 0;
        while (i < c.size() && c[i] >= '0' && c[i] <= '9')
            s.width = std::min(s.width * 10 + (c[i++] - '0'), kFieldWidthMax);
    }
    if (i < c.size() && c[i] == '.') {
        ++i;
        if (i < c.size() && c[i] == '*') {
            s.prec = -2;
            ++i;
        } else {
            s.prec = 0;
            while (i < c.size() && c[i] >= '0' && c[i] <= '9')
                s.prec = std::min(s.prec * 10 + (c[i++] - '0'), kPrecisionMax);
        }
    }
    std::string_view len = c.substr(i, c.size() - i - (c.empty() ? 0 : 1));
    if (!(len.empty() || len == "hh" || len == "h" || len == "l" || len == "ll" || len == "L" || len == "z" ||
          len == "Z"))
        return s;
    if (c.empty()) return s;
    s.conv = c.back();
    if (!std::strchr("diouxXcs", s.conv)) return s;
    if (s.conv == 's' && (s.zero || s.plus || s.space || s.alt || !len.empty())) return s;
    s.simple = true;
    s.plain = std::strchr("diuxX", s.conv) && !s.left && !s.zero && !s.plus && !s.space && !s.alt &&
              s.width == -1 && s.prec == -1;
    return s;
}

std::string clamp_conversion(std::string_view c) {
    std::string out;
    size_t i = 0;
    if (i < c.size() && c[i] == '%') ++i;
    while (i < c.size() && std::strchr("-0+ #", c[i])) ++i;
    out.append(c.substr(0, i));
    // the written width, then the precision after a '.', each saturated at its maximum
    auto number = [&](int max) {
        long v = 0;
        size_t j = i;
        while (j < c.size() && c[j] >= '0' && c[j] <= '9')
            v = std::min<long>(v * 10 + (c[j++] - '0'), max + 1L);
        if (v > max)
            out += std::to_string(max);
        else
            out.append(c.substr(i, j - i));
        i = j;
    };
    number(kFieldWidthMax);
    if (i < c.size() && c[i] == '.') {
        out += '.';
        ++i;
        number(kPrecisionMax);
    }
    out.append(c.substr(i));
    return out;
}

int clamp_star(const Spec& s, int star) noexcept {
    if (s.width != -2 && s.prec == -2) return std::min(star, kPrecisionMax);
    return std::clamp(star, -kFieldWidthMax, kFieldWidthMax);
}

namespace {

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"
void fallback_int(TextBuffer& out, const Segment& seg, int star, uint64_t v) {
    bool has_star = seg.spec.width == -2 || seg.spec.prec == -2 || seg.fmt.find('*') != std::string::npos;
    const char* f = seg.fmt.c_str();
    auto go = [&](auto x) {
        if (has_star)
            out.appendf(f, star, x);
        else
            out.appendf(f, x);
    };
    switch (seg.ls) {
        case -2:
            go(static_cast<int>(static_cast<signed char>(v)));
            break;
        case -1:
            go(static_cast<int>(static_cast<short>(v)));
            break;
        case 0:
            go(static_cast<int>(v));
            break;
        case 1:
            go(static_cast<long>(v));
            break;
        default:
            go(static_cast<long long>(v));
            break;
    }
}

void fallback_str(TextBuffer& out, const Segment& seg, int star, std::string_view str) {
    thread_local std::string scratch;
    scratch.assign(str.data(), str.size());
    if (seg.fmt.find('*') != std::string::npos)
        out.appendf(seg.fmt.c_str(), star, scratch.c_str());
    else
        out.appendf(seg.fmt.c_str(), scratch.c_str());
}
#pragma GCC diagnostic pop

void pad(TextBuffer& out, int n, char c) {
    if (n > 0) out.append_repeat(c, static_cast<size_t>(n));
}

// What printf prints for one integer conversion, in pieces: blanks, prefix, zeros, digits, blanks.
struct IntText {
    int lead = 0, trail = 0, zeros = 0;
    const char* prefix = "";
    int plen = 0;
    char digits[32];  // most significant first
    int nd = 0;
};

// The width `s` prints with, and whether left-aligned: a '*' width (-2) is `star`, which
// left-aligns when negative, as printf's.
void star_width(const Spec& s, int star, int& width, bool& left) noexcept {
    width = s.width;
    left = s.left;
    if (width == -2) {
        width = star;
        if (width < 0) {
            left = true;
            width = -width;
        }
    }
}

IntText int_text(const Spec& s, int ls, int star, uint64_t v) noexcept {
    IntText t;
    int width = 0, prec = s.prec;
    bool left = false;
    star_width(s, star, width, left);
    if (prec == -2) prec = star < 0 ? -1 : star;
    auto place = [&](int total) {
        const int fill = width > total ? width - total : 0;
        (left ? t.trail : t.lead) = fill;
    };
    if (s.conv == 'c') {
        t.digits[0] = static_cast<char>(static_cast<unsigned char>(v));
        t.nd = 1;
        place(1);
        return t;
    }

    // the value as the C type the conversion reads
    const bool is_signed = s.conv == 'd' || s.conv == 'i';
    const int bits = ls <= -2 ? 8 : ls == -1 ? 16 : ls == 0 ? 32 : 64;
    if (bits < 64) v &= (uint64_t{1} << bits) - 1;
    bool neg = false;
    uint64_t mag = v;
    if (is_signed) {
        const int64_t sv =
            bits == 64 ? static_cast<int64_t>(v) : static_cast<int64_t>(v << (64 - bits)) >> (64 - bits);
        neg = sv < 0;
        mag = neg ? 0 - static_cast<uint64_t>(sv) : static_cast<uint64_t>(sv);
    }
    const unsigned base = s.conv == 'o' ? 8 : (s.conv == 'x' || s.conv == 'X') ? 16 : 10;
    if (!(mag == 0 && prec == 0)) {
        if (base == 10) {
            t.nd = static_cast<int>(output::write_u64(t.digits, mag));
        } else if (base == 16) {
            t.nd = static_cast<int>(output::write_hex(t.digits, mag, s.conv == 'X'));
        } else {
            char rev[24];
            uint64_t m = mag;
            do {
                rev[t.nd++] = static_cast<char>('0' + (m & 7));
                m >>= 3;
            } while (m);
            for (int i = 0; i < t.nd; ++i) t.digits[i] = rev[t.nd - 1 - i];
        }
    }
    t.zeros = prec > t.nd ? prec - t.nd : 0;
    if (s.alt && s.conv == 'o' && t.zeros == 0 && (t.nd == 0 || t.digits[0] != '0')) t.zeros = 1;
    if (is_signed) {
        if (neg)
            t.prefix = "-";
        else if (s.plus)
            t.prefix = "+";
        else if (s.space)
            t.prefix = " ";
    } else if (s.alt && mag != 0 && base == 16) {
        t.prefix = s.conv == 'X' ? "0X" : "0x";
    }
    t.plen = static_cast<int>(std::strlen(t.prefix));
    int total = t.plen + t.zeros + t.nd;
    if (s.zero && !left && prec < 0 && width > total) {
        t.zeros += width - total;
        total = width;
    }
    place(total);
    return t;
}

std::string_view cut_at_nul(std::string_view str) noexcept {
    const size_t nul = str.find('\0');
    return nul == std::string_view::npos ? str : str.substr(0, nul);
}

// printf("%*.*s"): the string cut at the precision, and the blanks before or after it.
struct StrText {
    std::string_view str;
    size_t lead = 0, trail = 0;
};

StrText str_text(std::string_view str, int width, int prec, bool left) noexcept {
    StrText t;
    if (prec >= 0 && str.size() > static_cast<size_t>(prec)) str = str.substr(0, static_cast<size_t>(prec));
    t.str = str;
    const size_t fill =
        width > 0 && static_cast<size_t>(width) > str.size() ? static_cast<size_t>(width) - str.size() : 0;
    (left ? t.trail : t.lead) = fill;
    return t;
}

}  // namespace

bool bounded_spec(const Spec& s) noexcept {
    return s.simple && s.width != -2 && s.prec != -2 && s.width <= kMaxBoundedWidth &&
           s.prec <= kMaxBoundedWidth;
}

size_t write_int(char* dst, const Spec& s, int ls, uint64_t v) noexcept {
    if (s.plain) return write_plain_int(dst, s.conv, ls, v);
    const IntText t = int_text(s, ls, 0, v);
    char* p = dst;
    std::memset(p, ' ', static_cast<size_t>(t.lead));
    p += t.lead;
    std::memcpy(p, t.prefix, static_cast<size_t>(t.plen));
    p += t.plen;
    std::memset(p, '0', static_cast<size_t>(t.zeros));
    p += t.zeros;
    std::memcpy(p, t.digits, static_cast<size_t>(t.nd));
    p += t.nd;
    std::memset(p, ' ', static_cast<size_t>(t.trail));
    p += t.trail;
    return static_cast<size_t>(p - dst);
}

size_t write_str(char* dst, const Spec& s, std::string_view str) noexcept {
    const StrText t = str_text(cut_at_nul(str), s.width, s.prec, s.left);
    std::memset(dst, ' ', t.lead);
    if (!t.str.empty()) std::memcpy(dst + t.lead, t.str.data(), t.str.size());  // data() may be null
    std::memset(dst + t.lead + t.str.size(), ' ', t.trail);
    return t.lead + t.str.size() + t.trail;
}

void format_int(TextBuffer& out, const Segment& seg, int star, uint64_t v) {
    const Spec& s = seg.spec;
    star = clamp_star(s, star);
    if (s.plain) {
        char text[24];
        out.append(std::string_view(text, write_plain_int(text, s.conv, seg.ls, v)));
        return;
    }
    if (!s.simple) return fallback_int(out, seg, star, v);
    const IntText t = int_text(s, seg.ls, star, v);
    pad(out, t.lead, ' ');
    out.append(std::string_view(t.prefix, static_cast<size_t>(t.plen)));
    pad(out, t.zeros, '0');
    out.append(std::string_view(t.digits, static_cast<size_t>(t.nd)));
    pad(out, t.trail, ' ');
}

void format_str(TextBuffer& out, const Segment& seg, int star, std::string_view str) {
    str = cut_at_nul(str);
    const Spec& s = seg.spec;
    star = clamp_star(s, star);
    if (!s.simple || s.conv != 's') return fallback_str(out, seg, star, str);
    int width = 0, prec = s.prec;
    bool left = false;
    star_width(s, star, width, left);
    if (prec == -2) {
        // glibc 2.36 (what libtraceevent runs on here) prints a %.*s with a negative precision
        // argument as the conversion text itself
        if (star < 0) {
            out.append(seg.fmt);
            return;
        }
        prec = star;
    }
    const StrText t = str_text(str, width, prec, left);
    if (t.lead) out.append_repeat(' ', t.lead);
    out.append(t.str);
    if (t.trail) out.append_repeat(' ', t.trail);
}

}  // namespace ringscope::format
