#include "framework/format/print_eval.hpp"

#include <cctype>
#include <cstring>

#include "framework/format/print_parser.hpp"
#include "framework/format/printf_format.hpp"

namespace ringscope::format {
namespace {

constexpr uint16_t kAfInet = 2;
constexpr uint16_t kAfInet6 = 10;

void put_hex2(TextBuffer& out, uint8_t b, bool upper = false) {
    const char* d = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    out.push_back(d[b >> 4]);
    out.push_back(d[b & 15]);
}

void put_0x(TextBuffer& out, uint64_t v) {
    out.append("0x");
    out.append_hex(v);
}

}  // namespace

const Node* PrintEvaluator::strip_casts(const Node* n) const noexcept {
    while (n && n->kind == ArgKind::type) n = node(n->a);
    return n;
}

uint64_t PrintEvaluator::eval_ref(Ref r) const noexcept {
    if (r.barg) return r.barg->is_string ? 0 : r.barg->val;
    return eval(r.node);
}

uint64_t PrintEvaluator::eval(const Node* n) const noexcept {
    if (!n) return 0;
    switch (n->kind) {
        case ArgKind::null_:
            return 0;
        case ArgKind::atom:
            return n->num;  // libtraceevent would look a 0 up as a symbol name
        case ArgKind::field: {
            if (n->field < 0) return 0;
            const PField& f = p_.fields[static_cast<size_t>(n->field)];
            if (uint64_t{f.offset} + f.size > c_.size) return 0;
            return read_number(f.offset, f.size);
        }
        case ArgKind::type:
            return eval(node(n->a)) & n->cast_mask;
        case ArgKind::dynamic_array_len: {
            uint32_t off, len;
            dynamic_offset(p_.fields[static_cast<size_t>(n->field)], off, len);
            return len;
        }
        case ArgKind::dynamic_array: {
            // libtraceevent yields a host pointer here; the offset is the stable part of it
            uint32_t off, len;
            dynamic_offset(p_.fields[static_cast<size_t>(n->field)], off, len);
            return off;
        }
        case ArgKind::op:
            break;
        default:
            return 0;
    }
    if (n->op_index) {
        uint64_t right = eval(node(n->b));
        const Node* larg = node(n->a);
        const Node* typearg = nullptr;
        while (larg && larg->kind == ArgKind::type) {
            if (!typearg) typearg = larg;
            larg = node(larg->a);
        }
        uint32_t field_size = static_cast<uint32_t>(c_.long_size);
        uint32_t offset;
        if (larg && larg->kind == ArgKind::dynamic_array) {
            const PField& f = p_.fields[static_cast<size_t>(larg->field)];
            uint32_t len;
            dynamic_offset(f, offset, len);
            offset += static_cast<uint32_t>(right);
            if (f.elementsize) field_size = f.elementsize;
        } else if (larg && larg->kind == ArgKind::field) {
            if (larg->field < 0) return 0;
            const PField& f = p_.fields[static_cast<size_t>(larg->field)];
            field_size = f.elementsize;
            offset = f.offset + static_cast<uint32_t>(right) * f.elementsize;
        } else {
            return 0;  // libtraceevent: unknown op '['
        }
        if (!in_range(offset, field_size)) return 0;
        uint64_t val = read_number(offset, field_size);
        if (typearg) val &= typearg->ptr_cast_mask;
        return val;
    }
    if (n->op_cond) {
        uint64_t left = eval(node(n->a));
        const Node* r = node(n->b);
        if (!r) return 0;
        return left ? eval(node(r->a)) : eval(node(r->b));
    }
    uint64_t left = eval(node(n->a));
    uint64_t right = eval(node(n->b));
    const char o1 = n->op1;
    switch (n->op0) {
        case '!':
            return o1 == 0 ? !right : o1 == '=' ? left != right : 0;
        case '~':
            return ~right;
        case '|':
            return o1 ? (left || right) : (left | right);
        case '&':
            return o1 ? (left && right) : (left & right);
        case '<':
            return o1 == 0 ? left < right : o1 == '<' ? left << (right & 63) : o1 == '=' ? left <= right : 0;
        case '>':
            return o1 == 0 ? left > right : o1 == '>' ? left >> (right & 63) : o1 == '=' ? left >= right : 0;
        case '=':
            return o1 == '=' ? left == right : 0;
        case '-':
            return left - right;
        case '+':
            return left + right;
        case '/':
            return right ? left / right : 0;  // libtraceevent would die of SIGFPE
        case '%':
            return right ? left % right : 0;
        case '*':
            return left * right;
        default:
            return 0;  // '^' included: libtraceevent does not evaluate it
    }
}

void PrintEvaluator::print_info(TextBuffer& out) const {
    if (p_.failed || p_.runtime_failed.load(std::memory_order_relaxed)) {
        out.append("[FAILED TO PARSE]");
        print_fields(out, false);
        return;
    }
    for (const Segment& s : p_.segments) print_segment(out, s, ref(s.arg), ref(s.len_arg), false);
}

void PrintEvaluator::print_bprint(TextBuffer& out, const std::vector<Segment>& segs, const BArg* args,
                                  size_t nargs) const {
    for (const Segment& s : segs) {
        Ref a, l;
        if (s.arg >= 0 && static_cast<size_t>(s.arg) < nargs) a.barg = &args[s.arg];
        if (s.len_arg >= 0 && static_cast<size_t>(s.len_arg) < nargs) l.barg = &args[s.len_arg];
        print_segment(out, s, a, l, false);
    }
}

void PrintEvaluator::print_segment(TextBuffer& out, const Segment& s, Ref arg, Ref len_arg, bool raw) const {
    bool has_len = len_arg.node || len_arg.barg;
    int len = has_len ? static_cast<int>(eval_ref(len_arg)) : -1;
    switch (s.kind) {
        case SegKind::text:
            out.append(s.fmt);
            return;
        case SegKind::digit:
            format_int(out, s, len, eval_ref(arg));
            return;
        case SegKind::pointer:
            print_pointer(out, s, has_len ? len : 1, arg, raw);
            return;
        case SegKind::string:
            if (arg.barg) {
                if (arg.barg->is_string) {
                    format_str(out, s, len, arg.barg->str);
                } else {
                    char tmp[24];
                    int k = std::snprintf(tmp, sizeof tmp, "%lld", static_cast<long long>(arg.barg->val));
                    format_str(out, s, len, std::string_view(tmp, static_cast<size_t>(k)));
                }
                return;
            }
            print_str_arg(out, s, len, arg.node);
            return;
    }
}

void PrintEvaluator::print_str_arg(TextBuffer& out, const Segment& s, int len_arg, const Node* n) const {
    if (!n) return;
    switch (n->kind) {
        case ArgKind::atom:
            format_str(out, s, len_arg, n->text);
            return;
        case ArgKind::field: {
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
            format_str(out, s, len_arg,
                       std::string_view(reinterpret_cast<const char*>(c_.data + f.offset), len));
            return;
        }
        case ArgKind::flags: {
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
            return;
        }
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
        case ArgKind::hex_str: {
            const Node* f = node(n->a);
            uint32_t off;
            if (f && f->kind == ArgKind::dynamic_array) {
                uint32_t l;
                dynamic_offset(p_.fields[static_cast<size_t>(f->field)], off, l);
            } else if (f && f->kind == ArgKind::field && f->field >= 0) {
                off = p_.fields[static_cast<size_t>(f->field)].offset;
            } else {
                return;
            }
            // libtraceevent prints len bytes whatever the record size: past its end they read
            // as 0 here (bounded, where libtraceevent reads whatever memory follows)
            uint64_t len = eval(node(n->b)) & 0xffffffffu;
            if (len > uint64_t{c_.size} + 4096) len = uint64_t{c_.size} + 4096;
            for (uint64_t i = 0; i < len; ++i) {
                if (i && n->kind == ArgKind::hex) out.push_back(' ');
                put_hex2(out, off + i < c_.size ? c_.data[off + i] : 0);
            }
            return;
        }
        case ArgKind::int_array: {
            const Node* f = node(n->a);
            uint32_t off;
            if (f && f->kind == ArgKind::dynamic_array) {
                uint32_t l;
                dynamic_offset(p_.fields[static_cast<size_t>(f->field)], off, l);
            } else if (f && f->kind == ArgKind::field && f->field >= 0) {
                off = p_.fields[static_cast<size_t>(f->field)].offset;
            } else {
                return;
            }
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
            return;
        }
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

void PrintEvaluator::print_function(TextBuffer& out, char kind, uint64_t val, bool raw) const {
    std::optional<Symbol> sym;
    if (c_.resolvers) sym = c_.resolvers->lookup(kKernelDomain, val);
    if (sym) {
        out.append(sym->name);
        if (kind == 'F' || kind == 'S') {
            out.append("+0x");
            out.append_hex(val - sym->start);
        }
    }
    // libtraceevent 1.7.1 prints the same in raw mode; 1.8 adds " (0xADDR)"
    raw = raw && c_.raw_symbol_addresses;
    if (!sym || raw) {
        if (raw) out.append(" (");
        if (c_.long_size == 4)
            put_0x(out, static_cast<uint64_t>(static_cast<int64_t>(static_cast<long>(val))));
        else
            put_0x(out, val);
        if (raw) out.push_back(')');
    }
}

void PrintEvaluator::print_pointer(TextBuffer& out, const Segment& s, int plen, Ref arg, bool raw) const {
    if (arg.barg && arg.barg->is_string) {
        out.append(arg.barg->str);
        return;
    }
    if (arg.node && arg.node->kind == ArgKind::bstring) {
        out.append(arg.node->text);
        return;
    }
    const char* f = s.fmt.c_str();
    while (*f) {
        if (*f++ == 'p') break;
    }
    // bprint arguments are atoms: the field-based conversions print their error text
    const Node* n = arg.node;
    Node atom;
    if (arg.barg) {
        atom.kind = ArgKind::atom;
        atom.num = arg.barg->val;
    }
    switch (*f) {
        case 'F':
        case 'f':
        case 'S':
        case 's':
            print_function(out, *f, eval_ref(arg), raw);
            return;
        case 'M':
        case 'm':
            print_mac(out, f, arg.barg ? &atom : n);
            return;
        case 'I':
        case 'i':
            print_ip(out, f, arg.barg ? &atom : n);
            return;
        case 'U':
            print_uuid(out, f, arg.barg ? &atom : n);
            return;
        case 'h':
            print_raw_buff(out, f, arg.barg ? &atom : n, plen);
            return;
        default: {
            uint64_t v = eval_ref(arg);
            if (!v) {
                out.append("(nil)");
            } else {
                put_0x(out, v);
            }
            return;
        }
    }
}

void PrintEvaluator::print_mac(TextBuffer& out, const char* f, const Node* n) const {
    n = strip_casts(n);
    if (!n || n->kind != ArgKind::field) {
        out.appendf("ARG TYPE NOT FIELD BUT %d", n ? static_cast<int>(n->kind) : 0);
        return;
    }
    char sep = ':';
    if (f[0] == 'm')
        sep = 0;
    else if (f[0] == 'M' && f[1] == 'F')
        sep = '-';
    bool reverse = f[1] == 'R';
    if (n->field < 0) return;
    const PField& fld = p_.fields[static_cast<size_t>(n->field)];
    if (fld.size != 6) {
        out.append("INVALIDMAC");
        return;
    }
    for (int i = 0; i < 6; ++i) {
        if (i && sep) out.push_back(sep);
        uint32_t o = fld.offset + static_cast<uint32_t>(reverse ? 5 - i : i);
        put_hex2(out, o < c_.size ? c_.data[o] : 0);
    }
}

namespace {

void ip4(TextBuffer& out, char i, bool reverse, const uint8_t* b) {
    uint8_t x[4] = {b[0], b[1], b[2], b[3]};
    if (reverse) std::swap(x[0], x[3]), std::swap(x[1], x[2]);
    if (i == 'i')
        out.appendf("%03d.%03d.%03d.%03d", x[0], x[1], x[2], x[3]);
    else
        out.appendf("%d.%d.%d.%d", x[0], x[1], x[2], x[3]);
}

void ip6(TextBuffer& out, char i, const uint8_t* b) {
    for (int j = 0; j < 16; j += 2) {
        put_hex2(out, b[j]);
        put_hex2(out, b[j + 1]);
        if (i == 'I' && j < 14) out.push_back(':');
    }
}

void ip6c(TextBuffer& out, const uint8_t* a) {
    auto word = [&](int k) { return static_cast<uint16_t>((a[2 * k] << 8) | a[2 * k + 1]); };
    bool v4mapped = !a[0] && !a[1] && !a[2] && !a[3] && !a[4] && !a[5] && !a[6] && !a[7] && !a[8] && !a[9] &&
                    a[10] == 0xff && a[11] == 0xff;
    bool isatap = (a[8] | 0x02) == 0x02 && a[9] == 0 && a[10] == 0x5e && a[11] == 0xfe;
    bool use4 = v4mapped || isatap;
    int range = use4 ? 6 : 8;
    unsigned char zerolength[8] = {};
    for (int i = 0; i < range; ++i)
        for (int j = i; j < range && word(j) == 0; ++j) zerolength[i]++;
    int longest = 1, colonpos = -1;
    for (int i = 0; i < range; ++i)
        if (zerolength[i] > longest) {
            longest = zerolength[i];
            colonpos = i;
        }
    if (longest == 1) colonpos = -1;
    bool needcolon = false;
    for (int i = 0; i < range; ++i) {
        if (i == colonpos) {
            if (needcolon || i == 0) out.push_back(':');
            out.push_back(':');
            needcolon = false;
            i += longest - 1;
            continue;
        }
        if (needcolon) {
            out.push_back(':');
            needcolon = false;
        }
        uint16_t w = word(i);
        uint8_t hi = static_cast<uint8_t>(w >> 8), lo = static_cast<uint8_t>(w & 0xff);
        if (hi)
            out.appendf("%x%02x", hi, lo);
        else
            out.appendf("%x", lo);
        needcolon = true;
    }
    if (use4) {
        if (needcolon) out.push_back(':');
        ip4(out, 'I', false, a + 12);
    }
}

}  // namespace

void PrintEvaluator::print_ip(TextBuffer& out, const char* f, const Node* n) const {
    char i = f[0];
    const char* ptr = f + 1;
    auto ip4_args = [&](const char* q, bool& reverse) {
        reverse = false;
        switch (*q) {
            case 'h':
                reverse = !c_.file_big_endian;
                return 1;
            case 'l':
                reverse = true;
                return 1;
            case 'n':
            case 'b':
                return 1;
            default:
                return 0;
        }
    };
    auto bytes_at = [&](uint32_t off, uint32_t len, uint8_t* dst) {
        for (uint32_t k = 0; k < len; ++k) dst[k] = off + k < c_.size ? c_.data[off + k] : 0;
    };
    switch (*ptr) {
        case '4': {
            bool reverse;
            ip4_args(ptr + 1, reverse);
            n = strip_casts(n);
            if (!n || n->kind != ArgKind::field) {
                out.appendf("ARG TYPE NOT FIELD BUT %d", n ? static_cast<int>(n->kind) : 0);
                return;
            }
            if (n->field < 0) return;
            const PField& fld = p_.fields[static_cast<size_t>(n->field)];
            if (fld.size != 4) {
                out.append("INVALIDIPv4");
                return;
            }
            uint8_t b[4];
            bytes_at(fld.offset, 4, b);
            ip4(out, i, reverse, b);
            return;
        }
        case '6': {
            bool have_c = i == 'I' && ptr[1] == 'c';
            n = strip_casts(n);
            if (!n || n->kind != ArgKind::field) {
                out.appendf("ARG TYPE NOT FIELD BUT %d", n ? static_cast<int>(n->kind) : 0);
                return;
            }
            if (n->field < 0) return;
            const PField& fld = p_.fields[static_cast<size_t>(n->field)];
            if (fld.size != 16) {
                out.append("INVALIDIPv6");
                return;
            }
            uint8_t b[16];
            bytes_at(fld.offset, 16, b);
            if (have_c)
                ip6c(out, b);
            else
                ip6(out, i, b);
            return;
        }
        case 'S': {
            const char* q = ptr + 1;
            bool have_p = false, have_c = false;
            if (i == 'I') {
                if (*q == 'p') {
                    have_p = true;
                    ++q;
                }
                if (*q == 'c') {
                    have_c = true;
                    ++q;
                }
            }
            bool reverse;
            ip4_args(q, reverse);
            n = strip_casts(n);
            uint32_t off, len;
            if (n && n->kind == ArgKind::field) {
                if (n->field < 0) return;
                off = p_.fields[static_cast<size_t>(n->field)].offset;
                len = p_.fields[static_cast<size_t>(n->field)].size;
            } else if (n && n->kind == ArgKind::dynamic_array) {
                dynamic_offset(p_.fields[static_cast<size_t>(n->field)], off, len);
            } else {
                out.appendf("ARG NOT FIELD NOR DYNAMIC ARRAY BUT TYPE %d", n ? static_cast<int>(n->kind) : 0);
                return;
            }
            uint8_t sa[28];
            bytes_at(off, 28, sa);
            uint16_t family;
            std::memcpy(&family, sa, 2);
            if (family == kAfInet) {
                if (len < 16) {
                    out.append("INVALIDIPv4");
                    return;
                }
                ip4(out, i, reverse, sa + 4);
                if (have_p) out.appendf(":%d", (sa[2] << 8) | sa[3]);
            } else if (family == kAfInet6) {
                if (len < 28) {
                    out.append("INVALIDIPv6");
                    return;
                }
                if (have_p) out.push_back('[');
                if (have_c)
                    ip6c(out, sa + 8);
                else
                    ip6(out, i, sa + 8);
                if (have_p) out.appendf("]:%d", (sa[2] << 8) | sa[3]);
            }
            return;
        }
        default:
            return;
    }
}

void PrintEvaluator::print_uuid(TextBuffer& out, const char* f, const Node* n) const {
    static constexpr int kGuid[16] = {3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15};
    bool upper = f[1] == 'L' || f[1] == 'B';
    bool guid = f[1] == 'L' || f[1] == 'l';
    n = strip_casts(n);
    if (!n || n->kind != ArgKind::field) {
        out.appendf("ARG TYPE NOT FIELD BUT %d", n ? static_cast<int>(n->kind) : 0);
        return;
    }
    if (n->field < 0) return;
    const PField& fld = p_.fields[static_cast<size_t>(n->field)];
    if (fld.size != 16) {
        out.append("INVALIDUUID");
        return;
    }
    for (int i = 0; i < 16; ++i) {
        uint32_t o = fld.offset + static_cast<uint32_t>(guid ? kGuid[i] : i);
        put_hex2(out, o < c_.size ? c_.data[o] : 0, upper);
        if (i == 3 || i == 5 || i == 7 || i == 9) out.push_back('-');
    }
}

void PrintEvaluator::print_raw_buff(TextBuffer& out, const char* f, const Node* n, int plen) const {
    const char* delim = " ";
    switch (f[1]) {
        case 'C':
            delim = ":";
            break;
        case 'D':
            delim = "-";
            break;
        case 'N':
            delim = "";
            break;
        default:
            break;
    }
    if (!n || n->kind != ArgKind::dynamic_array) {
        out.appendf("ARG TYPE NOT FIELD BUT %d", n ? static_cast<int>(n->kind) : 0);
        return;
    }
    uint32_t off, len;
    dynamic_offset(p_.fields[static_cast<size_t>(n->field)], off, len);
    if (static_cast<int64_t>(len) < plen) plen = static_cast<int>(len);
    if (plen < 1) return;
    for (int i = 0; i < plen; ++i) {
        if (i) out.append(delim);
        uint64_t o = uint64_t{off} + static_cast<uint64_t>(i);
        put_hex2(out, o < c_.size ? c_.data[o] : 0);
    }
}

void PrintEvaluator::print_field_raw(TextBuffer& out, int fi) const {
    const PField& f = p_.fields[static_cast<size_t>(fi)];
    if (f.flags & kTepArray) {
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
