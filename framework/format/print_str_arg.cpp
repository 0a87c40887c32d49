// The %s arguments of a print fmt as event-parse.c's print_str_arg() prints them: strings,
// __print_flags/__print_symbolic, __print_hex[_str], __print_array, __get_bitmask/__get_cpumask.
#include "framework/format/print_eval.hpp"

#include <cstring>

#include "framework/format/hex_text.hpp"
#include "framework/format/printf_format.hpp"

namespace ringscope::format {

void PrintEvaluator::print_str_arg(TextBuffer& out, const Segment& s, int len_arg, const Node* n) const {
    if (!n) return;
    switch (n->kind) {
        case ArgKind::atom:
            format_str(out, s, len_arg, n->text);
            return;
        case ArgKind::field:
            print_str_field(out, s, len_arg, n);
            return;
        case ArgKind::flags:
            print_flags(out, s, len_arg, n);
            return;
        case ArgKind::symbol: {
            int64_t val = static_cast<int64_t>(eval(node(n->a)));
            for (const FlagSym& fs : n->syms) {
                if (val == fs.fval) {
                    format_str(out, s, len_arg, fs.str);
                    return;
                }
            }
            put_0x(out, static_cast<uint64_t>(val));
            return;
        }
        case ArgKind::hex:
        case ArgKind::hex_str:
            print_hex(out, n);
            return;
        case ArgKind::int_array:
            print_int_array(out, n);
            return;
        case ArgKind::string: {
            if (n->field < 0) return;
            uint32_t off, len;
            dynamic_offset(p_.fields[static_cast<size_t>(n->field)], off, len);
            if (!len || off >= c_.size) return;
            format_str(out, s, len_arg,
                       std::string_view(reinterpret_cast<const char*>(c_.data + off), c_.size - off));
            return;
        }
        case ArgKind::bitmask:
        case ArgKind::cpumask: {
            if (n->field < 0) return;
            uint32_t off, len;
            dynamic_offset(p_.fields[static_cast<size_t>(n->field)], off, len);
            if (n->kind == ArgKind::bitmask)
                print_bitmask(out, s, len_arg, off, len);
            else
                print_cpumask(out, s, len_arg, off, len);
            return;
        }
        case ArgKind::op: {
            if (n->text.empty() || n->text[0] != '?') return;
            const Node* r = node(n->b);
            if (!r) return;
            print_str_arg(out, s, len_arg, eval(node(n->a)) ? node(r->a) : node(r->b));
            return;
        }
        default:
            return;
    }
}

void PrintEvaluator::print_str_field(TextBuffer& out, const Segment& s, int len_arg, const Node* n) const {
    if (n->field < 0) return;
    const PField& f = p_.fields[static_cast<size_t>(n->field)];
    uint32_t len = f.size ? f.size : (c_.size > f.offset ? c_.size - f.offset : 0);
    if (!(f.flags & kTepArray) && f.size == static_cast<uint32_t>(c_.long_size)) {
        // a pointer: a constant string the kernel printed before, or its address
        uint64_t addr = 0;
        if (in_range(f.offset, f.size)) {
            if (c_.long_size == 8) {
                std::memcpy(&addr, c_.data + f.offset, 8);
            } else {
                uint32_t a32;
                std::memcpy(&a32, c_.data + f.offset, 4);
                addr = a32;
            }
        }
        if (c_.printk) {
            auto it = c_.printk->find(addr);
            if (it != c_.printk->end()) {
                out.append(it->second);
                return;
            }
        }
        out.append_hex(addr);
        return;
    }
    if (f.offset >= c_.size) {
        format_str(out, s, len_arg, {});
        return;
    }
    if (len > c_.size - f.offset) len = c_.size - f.offset;
    format_str(out, s, len_arg, std::string_view(reinterpret_cast<const char*>(c_.data + f.offset), len));
}

void PrintEvaluator::print_flags(TextBuffer& out, const Segment& s, int len_arg, const Node* n) const {
    int64_t val = static_cast<int64_t>(eval(node(n->a)));
    bool printed = false;
    for (const FlagSym& fs : n->syms) {
        if (!val && fs.fval < 0) {
            format_str(out, s, len_arg, fs.str);
            break;
        }
        if (fs.fval > 0 && (val & fs.fval) == fs.fval) {
            if (printed && n->has_delim) out.append(n->text);
            format_str(out, s, len_arg, fs.str);
            printed = true;
            val &= ~fs.fval;
        }
    }
    if (val) {
        if (printed && n->has_delim) out.append(n->text);
        put_0x(out, static_cast<uint64_t>(val));
    }
}

bool PrintEvaluator::array_offset(const Node* f, uint32_t& off) const noexcept {
    if (f && f->kind == ArgKind::dynamic_array) {
        uint32_t l;
        dynamic_offset(p_.fields[static_cast<size_t>(f->field)], off, l);
        return true;
    }
    if (f && f->kind == ArgKind::field && f->field >= 0) {
        off = p_.fields[static_cast<size_t>(f->field)].offset;
        return true;
    }
    return false;
}

void PrintEvaluator::print_hex(TextBuffer& out, const Node* n) const {
    uint32_t off;
    if (!array_offset(node(n->a), off)) return;
    // libtraceevent prints len bytes whatever the record size: past its end they read
    // as 0 here (bounded, where libtraceevent reads whatever memory follows)
    uint64_t len = eval(node(n->b)) & 0xffffffffu;
    if (len > uint64_t{c_.size} + 4096) len = uint64_t{c_.size} + 4096;
    for (uint64_t i = 0; i < len; ++i) {
        if (i && n->kind == ArgKind::hex) out.push_back(' ');
        put_hex2(out, off + i < c_.size ? c_.data[off + i] : 0);
    }
}

void PrintEvaluator::print_int_array(TextBuffer& out, const Node* n) const {
    uint32_t off;
    if (!array_offset(node(n->a), off)) return;
    uint32_t len = static_cast<uint32_t>(eval(node(n->b)));
    int el = static_cast<int>(eval(node(n->c)));
    out.push_back('{');
    uint64_t pos = off;
    for (uint32_t i = 0; i < len; ++i) {
        if (i) out.push_back(',');
        uint64_t v = 0;
        auto raw = [&](int k) {
            if (pos + static_cast<uint64_t>(k) <= c_.size)
                std::memcpy(&v, c_.data + pos, static_cast<size_t>(k));
        };
        if (el == 1 || el == 2 || el == 4 || el == 8) {
            raw(el);  // host order, as libtraceevent reads them
            put_0x(out, v);
        } else {
            raw(1);
            out.appendf("BAD SIZE:%d 0x%x", el, static_cast<unsigned>(v & 0xff));
            el = 1;
        }
        pos += static_cast<uint64_t>(el);
        if (pos > c_.size + uint64_t{65536}) break;  // libtraceevent would have crashed long ago
    }
    out.push_back('}');
}

void PrintEvaluator::print_bitmask(TextBuffer& out, const Segment& s, int len_arg, uint32_t off,
                                   uint32_t size) const {
    if (!in_range(off, size)) size = off < c_.size ? c_.size - off : 0;
    int nr_bits = static_cast<int>(size) * 8;
    int str_size = (nr_bits + 3) / 4 + (nr_bits - 1) / 32;
    thread_local std::string str;
    str.assign(static_cast<size_t>(str_size > 0 ? str_size : 0), '\0');
    int len = 0;
    for (int i = str_size - 2; i >= 0; i -= 2) {
        int index = c_.file_big_endian ? static_cast<int>(size) - (len + 1) : len;
        uint8_t b = c_.data[off + static_cast<uint32_t>(index)];
        const char* d = "0123456789abcdef";
        str[static_cast<size_t>(i)] = d[b >> 4];
        str[static_cast<size_t>(i) + 1] = d[b & 15];
        ++len;
        if (!(len & 3) && i > 0) {
            --i;
            str[static_cast<size_t>(i)] = ',';
        }
    }
    format_str(out, s, len_arg, str);
}

void PrintEvaluator::print_cpumask(TextBuffer& out, const Segment& s, int len_arg, uint32_t off,
                                   uint32_t size) const {
    if (!in_range(off, size)) size = off < c_.size ? c_.size - off : 0;
    thread_local std::string str;
    str.clear();
    int nr_bits = static_cast<int>(size) * 8;
    int firstone = -1, firstzero = -1;
    bool first = true;
    for (int i = 0; i < static_cast<int>(size); ++i) {
        int index = c_.file_big_endian ? static_cast<int>(size) - (i + 1) : i;
        unsigned byte = c_.data[off + static_cast<uint32_t>(index)];
        for (;;) {
            if (firstone < 0 && byte) {
                firstone = __builtin_ffs(static_cast<int>(byte)) - 1;
                byte |= (1u << firstone) - 1;
                firstone += i * 8;
            }
            if (firstone < 0) break;
            if ((~byte) & 0xff) {
                firstzero = __builtin_ffs(static_cast<int>(~byte & 0xff)) - 1;
                byte &= ~((1u << firstzero) - 1);
                firstzero += i * 8;
            } else if (i == static_cast<int>(size) - 1) {
                firstzero = nr_bits;
                byte = 0;
            } else {
                break;
            }
            if (!first) str.push_back(',');
            first = false;
            str += std::to_string(firstone);
            if (firstzero > firstone + 1) {
                str.push_back('-');
                str += std::to_string(firstzero - 1);
            }
            firstzero = firstone = -1;
            if (!byte) break;
        }
    }
    format_str(out, s, len_arg, str);
}

}  // namespace ringscope::format
