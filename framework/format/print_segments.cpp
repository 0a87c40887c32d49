// parse_args() of event-parse.c: a format string cut into literal text and conversions, each
// conversion bound to the next argument, as libtraceevent's print cache holds them.
#include "framework/format/print_parser.hpp"

#include "framework/format/printf_format.hpp"

#include <cstring>

namespace ringscope::format {

namespace {

// The print fmt's arguments, taken in order by the conversions.
struct ArgCursor {
    const std::vector<int32_t>& args;
    size_t next = 0;

    bool have() const { return next < args.size(); }
    int32_t take() { return next < args.size() ? args[next++] : -1; }
};

// A length modifier updates `ls` (-2 hh ... 2 ll/L); false for any other character.
bool length_modifier(char ch, int& ls) {
    switch (ch) {
        case 'h':
            --ls;
            return true;
        case 'l':
            ++ls;
            return true;
        case 'L':
            ls = 2;
            return true;
        case 'z':
        case 'Z':
            ls = 1;
            return true;
        default:
            return false;
    }
}

// The letters after "%pI"/"%pi" (q points at the 'I') that belong to the conversion.
int ip_suffix(const char* q) {
    int res = 0;
    int index = 2;
    switch (q[1]) {
        case 'S':
            while (q[index] == 'p' || q[index] == 'f' || q[index] == 's') {
                ++res;
                ++index;
            }
            [[fallthrough]];
        case '4':
            if (q[index] == 'h' || q[index] == 'n' || q[index] == 'l' || q[index] == 'b') {
                ++res;
                ++index;
            }
            if (q[1] == '4') {
                ++res;
                break;
            }
            [[fallthrough]];
        case '6':
            if (q[index] == 'c') ++res;
            ++res;
            break;
        default:
            break;
    }
    return res + 1;
}

// parse_arg_format_pointer(): how many letters after "%p" (q points past the 'p') belong to it.
int pointer_suffix(const char* q) {
    switch (*q) {
        case 'F':
        case 'S':
        case 'f':
        case 's':
            return 1;
        case 'M':
        case 'm':
            return (q[1] == 'R' || q[1] == 'F') ? 2 : 1;
        case 'I':
        case 'i':
            return ip_suffix(q);
        case 'U':
            return (q[1] == 'L' || q[1] == 'l' || q[1] == 'B' || q[1] == 'b') ? 2 : 1;
        case 'h':
            return (q[1] == 'C' || q[1] == 'D' || q[1] == 'N') ? 2 : 1;
        default:
            return 0;
    }
}

// A conversion segment of the flen characters at start; one longer than `limit` fails the
// format and is cut to 31 characters, as libtraceevent's fixed buffer cuts it.
void push_conversion(std::vector<Segment>& out, SegKind kind, const char* start, long flen, long limit,
                     int32_t arg, int32_t len_arg, int ls, bool* failed) {
    if (flen > limit) {
        *failed = true;
        flen = 31;
    }
    Segment s;
    s.kind = kind;
    s.fmt.assign(start, static_cast<size_t>(flen));
    s.arg = arg;
    s.len_arg = len_arg;
    s.ls = ls;
    out.push_back(std::move(s));
}

// parse_arg_format(): the conversion at f ("%..."); returns how many characters it used.
long cut_conversion(const char* f, ArgCursor& cur, std::vector<Segment>& out, bool* failed) {
    const char* start = f;
    const char* p = f + 1;
    long ret = 1;
    int ls = 0;
    int32_t len_arg = -1;
    for (; *p; ++p, ++ret) {
        char ch = *p;
        if (ch == '#' || ch == '.' || (ch >= '0' && ch <= '9') || ch == '-' || ch == '+') continue;
        if (length_modifier(ch, ls)) continue;
        if (ch == '*') {
            if (!cur.have() || len_arg >= 0) {
                *failed = true;
                break;
            }
            len_arg = cur.take();
            continue;
        }
        // libtraceevent 1.7.1 has no %c: it prints ">c<" and takes no argument
        bool pointer = ch == 'p', digit = std::strchr("duixXo", ch) != nullptr, string = ch == 's';
        if ((pointer || digit || string) && !cur.have()) {
            *failed = true;
            break;
        }
        if (pointer) {
            int res = pointer_suffix(p + 1);
            for (int k = 0; k < res && p[1]; ++k) {  // never step over the end of the string
                ++p;
                ++ret;
            }
            push_conversion(out, SegKind::pointer, start, p + 1 - start, 31, cur.take(), len_arg, ls, failed);
        } else if (digit) {
            if (ls < -2 || ls > 2) *failed = true;
            push_conversion(out, SegKind::digit, start, p + 1 - start, 30, cur.take(), len_arg, ls, failed);
        } else if (string) {
            push_conversion(out, SegKind::string, start, p + 1 - start, 31, cur.take(), len_arg, 0, failed);
        } else {
            // an unknown conversion prints itself between > and <
            Segment s;
            s.kind = SegKind::text;
            s.fmt = std::string(">") + ch + "<";
            out.push_back(std::move(s));
        }
        ++ret;
        break;
    }
    return ret;
}

// parse_arg_string(): the literal text at f up to the next conversion, escapes processed;
// returns how many characters it used.
long cut_text(const char* f, std::vector<Segment>& out) {
    Segment s;
    s.kind = SegKind::text;
    long ret = 0;
    for (const char* p = f; *p; ++p, ++ret) {
        if (*p == '\\') {
            ++p;
            ++ret;
            switch (*p) {
                case 'n':
                    s.fmt.push_back('\n');
                    break;
                case 't':
                    s.fmt.push_back('\t');
                    break;
                case 'r':
                    s.fmt.push_back('\r');
                    break;
                case '\\':
                    s.fmt.push_back('\\');
                    break;
                case '\0':
                    break;
                default:
                    s.fmt.push_back(*p);
                    break;
            }
            if (!*p) break;
        } else if (*p == '%') {
            if (p[1] != '%') break;
            s.fmt.push_back('%');
            ++p;
            ++ret;
        } else {
            s.fmt.push_back(*p);
        }
    }
    s.ends_0x = s.fmt.size() > 1 && s.fmt.compare(s.fmt.size() - 2, 2, "0x") == 0;
    out.push_back(std::move(s));
    return ret;
}

}  // namespace

std::vector<Segment> PrintParser::cut_segments(const std::string& format, const std::vector<int32_t>& args,
                                               bool* failed) {
    std::vector<Segment> out;
    ArgCursor cur{args};
    const char* f = format.c_str();
    long len = static_cast<long>(format.size());
    while (*f) {
        long ret = (f[0] == '%' && f[1] != '%') ? cut_conversion(f, cur, out, failed) : cut_text(f, out);
        len -= ret;
        if (len > 0)
            f += ret;
        else
            break;
    }
    for (Segment& s : out) {
        if (s.kind == SegKind::text) continue;
        s.fmt = clamp_conversion(s.fmt);
        if (s.kind == SegKind::digit || s.kind == SegKind::string) s.spec = parse_spec(s.fmt);
    }
    return out;
}

}  // namespace ringscope::format
