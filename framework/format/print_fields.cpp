// tep_print_fields(): " name=value" for every field, each printed with the conversion of the
// print fmt that uses it when there is one, else raw (numbers, ARRAY[..], strings).
#include "framework/format/print_eval.hpp"

#include <cctype>

#include "framework/format/hex_text.hpp"

namespace ringscope::format {

void PrintEvaluator::print_array_raw(TextBuffer& out, int fi) const {
    const PField& f = p_.fields[static_cast<size_t>(fi)];
    uint32_t off, len;
    if (f.flags & kTepDynamic) {
        dynamic_offset(f, off, len);
    } else {
        off = f.offset;
        len = f.size;
    }
    bool printable = true;
    for (uint32_t i = 0; i < len; ++i) {
        if (uint64_t{off} + i >= c_.size) break;
        int ch = static_cast<signed char>(c_.data[off + i]);
        if (!ch) break;
        if (ch < 0 || (!std::isprint(ch) && !std::isspace(ch))) {
            printable = false;
            break;
        }
    }
    if (p_.string_flag(fi) && printable) {
        // libtraceevent prints "%s" from the field on, so a string without a NUL in the
        // record (a char buf[0]) runs on into the bytes after it, as far as Event::trailing().
        const uint64_t end = uint64_t{c_.size} + c_.trailing;
        if (off < end) {
            std::string_view sv(reinterpret_cast<const char*>(c_.data + off), end - off);
            out.append(sv.substr(0, sv.find('\0')));
        }
        return;
    }
    // An array the record holds only part of (kernel_stack's caller[8] with `size` entries):
    // libtraceevent prints the field's full size from the record on, so the bytes that follow
    // the record in memory (the next records, past the sub-buffer the next page of its chunk);
    // past what the reader holds they read as 0, and only a page's worth of them, so a
    // corrupt size of 4 GiB cannot print 16 GiB of text.
    if (uint64_t{len} > uint64_t{c_.size} + 4096) len = c_.size + 4096;
    const uint64_t readable = uint64_t{c_.size} + c_.trailing;
    out.append("ARRAY[");
    for (uint32_t i = 0; i < len; ++i) {
        if (i) out.append(", ");
        uint64_t o = uint64_t{off} + i;
        put_hex2(out, o < readable ? c_.data[o] : 0);
    }
    out.push_back(']');
    p_.string_cleared[fi].store(true, std::memory_order_relaxed);
}

void PrintEvaluator::print_field_raw(TextBuffer& out, int fi) const {
    const PField& f = p_.fields[static_cast<size_t>(fi)];
    if (f.flags & kTepArray) {
        print_array_raw(out, fi);
        return;
    }
    uint64_t val = read_number(f.offset, f.size);
    if (f.flags & kTepPointer) {
        put_0x(out, val);
    } else if (f.flags & kTepSigned) {
        switch (f.size) {
            case 4:
                if (f.flags & kTepLong)
                    out.appendf("0x%x", static_cast<unsigned>(static_cast<int>(val)));
                else
                    out.append_int(static_cast<int>(val));
                break;
            case 2:
                out.appendf("%2d", static_cast<int>(static_cast<short>(val)));
                break;
            case 1:
                out.appendf("%1d", static_cast<int>(static_cast<signed char>(val)));
                break;
            default:
                out.append_int(static_cast<int64_t>(val));
                break;
        }
    } else if (f.flags & kTepLong) {
        put_0x(out, val);
    } else {
        out.append_uint(val);
    }
}

void PrintEvaluator::print_fields(TextBuffer& out, bool raw) const {
    bool failed = p_.failed || p_.runtime_failed.load(std::memory_order_relaxed);
    size_t nseg = p_.segments.size();
    // libtraceevent walks its print cache alongside the fields; "none" once it ran off the end
    size_t parse = nseg ? 0 : SIZE_MAX;
    for (size_t fi = p_.nr_common; fi < p_.fields.size(); ++fi) {
        const PField& f = p_.fields[fi];
        out.push_back(' ');
        out.append(f.name);
        out.push_back('=');
        int field = static_cast<int>(fi);
        if (parse == SIZE_MAX || failed || (f.flags & kTepArray) || p_.string_flag(field) || p_.is_bprint) {
            print_field_raw(out, field);
            continue;
        }
        size_t start = parse;
        bool has_0x = false, done = false;
        do {
            const Segment& s = p_.segments[parse];
            if (s.kind == SegKind::text) {
                has_0x = s.ends_0x;
            } else {
                const Node* a = strip_casts(node(s.arg));
                if (a && a->kind == ArgKind::field && a->field == field) {
                    if (has_0x) out.append("0x");
                    print_segment(out, s, ref(s.arg), ref(s.len_arg), raw);
                    parse = parse + 1 < nseg ? parse + 1 : SIZE_MAX;
                    done = true;
                    break;
                }
                has_0x = false;
            }
            parse = parse + 1 < nseg ? parse + 1 : 0;
        } while (parse != start);
        if (!done) print_field_raw(out, field);
    }
}

}  // namespace ringscope::format
