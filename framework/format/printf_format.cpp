#include "framework/format/printf_format.hpp"

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
        while (i < c.size() && c[i] >= '0' && c[i] <= '9' && s.width < 100000)
            s.width = s.width * 10 + (c[i++] - '0');
    }
    if (i < c.size() && c[i] == '.') {
        ++i;
        if (i < c.size() && c[i] == '*') {
            s.prec = -2;
            ++i;
        } else {
            s.prec = 0;
            while (i < c.size() && c[i] >= '0' && c[i] <= '9' && s.prec < 100000)
                s.prec = s.prec * 10 + (c[i++] - '0');
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

// %d %i %u %x %X without flags, width or precision: most print fmt conversions.
void format_plain_int(TextBuffer& out, char conv, int ls, uint64_t v) {
    const int bits = ls <= -2 ? 8 : ls == -1 ? 16 : ls == 0 ? 32 : 64;
    if (bits < 64) v &= (uint64_t{1} << bits) - 1;
    char text[24];
    char* const end = text + sizeof text;
    char* p = end;
    if (conv == 'x' || conv == 'X') {
        const char* hex = conv == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
        do {
            *--p = hex[v & 15];
            v >>= 4;
        } while (v);
    } else {
        bool neg = false;
        if (conv != 'u') {
            const int64_t sv =
                bits == 64 ? static_cast<int64_t>(v) : static_cast<int64_t>(v << (64 - bits)) >> (64 - bits);
            neg = sv < 0;
            v = neg ? 0 - static_cast<uint64_t>(sv) : static_cast<uint64_t>(sv);
        }
        do {
            *--p = static_cast<char>('0' + v % 10);
            v /= 10;
        } while (v);
        if (neg) *--p = '-';
    }
    out.append(std::string_view(p, static_cast<size_t>(end - p)));
}

}  // namespace

void format_int(TextBuffer& out, const Segment& seg, int star, uint64_t v) {
    const Spec& s = seg.spec;
    if (s.plain) return format_plain_int(out, s.conv, seg.ls, v);
    if (!s.simple) return fallback_int(out, seg, star, v);
    int width = s.width, prec = s.prec;
    bool left = s.left;
    if (width == -2) {
        width = star;
        if (width < 0) {
            left = true;
            width = -width;
        }
    }
    if (prec == -2) prec = star < 0 ? -1 : star;

    // the value as the C type the conversion reads
    bool is_signed = s.conv == 'd' || s.conv == 'i';
    bool neg = false;
    uint64_t mag;
    int bits = seg.ls <= -2 ? 8 : seg.ls == -1 ? 16 : seg.ls == 0 ? 32 : 64;
    if (s.conv == 'c') {
        char ch = static_cast<char>(static_cast<unsigned char>(v));
        int w = width > 1 ? width - 1 : 0;
        if (!left) pad(out, w, ' ');
        out.push_back(ch);
        if (left) pad(out, w, ' ');
        return;
    }
    if (bits < 64) v &= (uint64_t{1} << bits) - 1;
    if (is_signed) {
        int64_t sv =
            bits == 64 ? static_cast<int64_t>(v) : static_cast<int64_t>(v << (64 - bits)) >> (64 - bits);
        neg = sv < 0;
        mag = neg ? 0 - static_cast<uint64_t>(sv) : static_cast<uint64_t>(sv);
    } else {
        mag = v;
    }

    // Digits least significant first; each base has its own loop so the divisions are by constants.
    char digits[32];
    int nd = 0;
    const unsigned base = s.conv == 'o' ? 8 : (s.conv == 'x' || s.conv == 'X') ? 16 : 10;
    if (!(mag == 0 && prec == 0)) {
        uint64_t m = mag;
        if (base == 10) {
            do {
                digits[nd++] = static_cast<char>('0' + m % 10);
                m /= 10;
            } while (m);
        } else if (base == 16) {
            const char* hex = s.conv == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
            do {
                digits[nd++] = hex[m & 15];
                m >>= 4;
            } while (m);
        } else {
            do {
                digits[nd++] = static_cast<char>('0' + (m & 7));
                m >>= 3;
            } while (m);
        }
    }
    int zeros = prec > nd ? prec - nd : 0;
    if (s.alt && s.conv == 'o' && zeros == 0 && (nd == 0 || digits[nd - 1] != '0')) zeros = 1;
    const char* prefix = "";
    if (is_signed) {
        if (neg)
            prefix = "-";
        else if (s.plus)
            prefix = "+";
        else if (s.space)
            prefix = " ";
    } else if (s.alt && mag != 0 && base == 16) {
        prefix = s.conv == 'X' ? "0X" : "0x";
    }
    int plen = static_cast<int>(std::strlen(prefix));
    int total = plen + zeros + nd;
    if (s.zero && !left && prec < 0 && width > total) {
        zeros += width - total;
        total = width;
    }
    if (!left) pad(out, width - total, ' ');
    // The common case (no padding, no prefix) is one append of the reversed digits.
    char text[32];
    for (int i = 0; i < nd; ++i) text[i] = digits[nd - 1 - i];
    if (plen) out.append(std::string_view(prefix, static_cast<size_t>(plen)));
    pad(out, zeros, '0');
    out.append(std::string_view(text, static_cast<size_t>(nd)));
    if (left) pad(out, width - total, ' ');
}

void format_str(TextBuffer& out, const Segment& seg, int star, std::string_view str) {
    size_t nul = str.find('\0');
    if (nul != std::string_view::npos) str = str.substr(0, nul);
    const Spec& s = seg.spec;
    if (!s.simple || s.conv != 's') return fallback_str(out, seg, star, str);
    int width = s.width, prec = s.prec;
    bool left = s.left;
    if (width == -2) {
        width = star;
        if (width < 0) {
            left = true;
            width = -width;
        }
    }
    if (prec == -2) {
        // glibc 2.36 (what libtraceevent runs on here) prints a %.*s with a negative precision
        // argument as the conversion text itself
        if (star < 0) {
            out.append(seg.fmt);
            return;
        }
        prec = star;
    }
    if (prec >= 0 && str.size() > static_cast<size_t>(prec)) str = str.substr(0, static_cast<size_t>(prec));
    int w = width - static_cast<int>(str.size());
    if (!left) pad(out, w, ' ');
    out.append(str);
    if (left) pad(out, w, ' ');
}

}  // namespace ringscope::format
