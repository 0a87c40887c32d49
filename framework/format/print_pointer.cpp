// %p conversions as event-parse.c prints them: symbols (%pS/%ps/%pF/%pf), MAC (%pM/%pm),
// IPv4/IPv6/sockaddr (%pI4/%pI6/%pIS and friends), UUIDs (%pU) and raw buffers (%ph).
#include "framework/format/print_eval.hpp"

#include <cstring>

#include "framework/format/hex_text.hpp"

namespace ringscope::format {
namespace {

constexpr uint16_t kAfInet = 2;
constexpr uint16_t kAfInet6 = 10;

}  // namespace

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
    const PField* field = pointer_field(out, n);
    if (!field) return;
    const PField& fld = *field;
    char sep = ':';
    if (f[0] == 'm')
        sep = 0;
    else if (f[0] == 'M' && f[1] == 'F')
        sep = '-';
    bool reverse = f[1] == 'R';
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

// The byte order letter after %pI4/%pIS (h, l, n, b): whether the address is reversed.
void ip4_args(const char* q, bool big_endian, bool& reverse) {
    reverse = false;
    switch (*q) {
        case 'h':
            reverse = !big_endian;
            return;
        case 'l':
            reverse = true;
            return;
        default:
            return;
    }
}

// len bytes of the record from off, 0 past its end.
void bytes_at(const EvalContext& c, uint32_t off, uint32_t len, uint8_t* dst) {
    for (uint32_t k = 0; k < len; ++k) dst[k] = off + k < c.size ? c.data[off + k] : 0;
}

}  // namespace

const PField* PrintEvaluator::pointer_field(TextBuffer& out, const Node* n) const {
    n = strip_casts(n);
    if (!n || n->kind != ArgKind::field) {
        out.appendf("ARG TYPE NOT FIELD BUT %d", n ? static_cast<int>(n->kind) : 0);
        return nullptr;
    }
    if (n->field < 0) return nullptr;
    return &p_.fields[static_cast<size_t>(n->field)];
}

void PrintEvaluator::print_ip(TextBuffer& out, const char* f, const Node* n) const {
    char i = f[0];
    const char* ptr = f + 1;
    switch (*ptr) {
        case '4':
            print_ip4(out, i, ptr + 1, n);
            return;
        case '6':
            print_ip6(out, i, i == 'I' && ptr[1] == 'c', n);
            return;
        case 'S':
            print_ip_sockaddr(out, i, ptr + 1, n);
            return;
        default:
            return;
    }
}

void PrintEvaluator::print_ip4(TextBuffer& out, char i, const char* q, const Node* n) const {
    bool reverse;
    ip4_args(q, c_.file_big_endian, reverse);
    const PField* fld = pointer_field(out, n);
    if (!fld) return;
    if (fld->size != 4) {
        out.append("INVALIDIPv4");
        return;
    }
    uint8_t b[4];
    bytes_at(c_, fld->offset, 4, b);
    ip4(out, i, reverse, b);
}

void PrintEvaluator::print_ip6(TextBuffer& out, char i, bool have_c, const Node* n) const {
    const PField* fld = pointer_field(out, n);
    if (!fld) return;
    if (fld->size != 16) {
        out.append("INVALIDIPv6");
        return;
    }
    uint8_t b[16];
    bytes_at(c_, fld->offset, 16, b);
    if (have_c)
        ip6c(out, b);
    else
        ip6(out, i, b);
}

void PrintEvaluator::print_ip_sockaddr(TextBuffer& out, char i, const char* q, const Node* n) const {
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
    ip4_args(q, c_.file_big_endian, reverse);
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
    bytes_at(c_, off, 28, sa);
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
}

void PrintEvaluator::print_uuid(TextBuffer& out, const char* f, const Node* n) const {
    static constexpr int kGuid[16] = {3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15};
    bool upper = f[1] == 'L' || f[1] == 'B';
    bool guid = f[1] == 'L' || f[1] == 'l';
    const PField* field = pointer_field(out, n);
    if (!field) return;
    const PField& fld = *field;
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

}  // namespace ringscope::format
