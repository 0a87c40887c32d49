#include "framework/format/compiled_print.hpp"

#include <algorithm>
#include <cstring>

#include "framework/format/printf_format.hpp"
#include "framework/output/number_format.hpp"

namespace ringscope::format {
namespace {

constexpr size_t kHexRoom = 18;  // "0x" + 16 digits
// A hexadecimal conversion stores 16 bytes whatever the digits; a literal kLiteral bytes. The room
// carries that much slack after the last byte printed.
constexpr size_t kStoreSlack = 16;

const Node* node_at(const Program& p, int32_t i) {
    return i < 0 ? nullptr : &p.nodes[static_cast<size_t>(i)];
}

bool loadable_size(uint32_t n) {
    return n == 1 || n == 2 || n == 4 || n == 8;
}

uint64_t size_mask(uint32_t size) {
    return size >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * size)) - 1;
}

size_t put_0x(char* p, uint64_t v) {
    p[0] = '0';
    p[1] = 'x';
    return 2 + output::write_hex16(p + 2, v);
}

}  // namespace

// PrintEvaluator::eval() of a field, or of `field[constant]` on a fixed array, under casts.
bool CompiledPrint::compile_load(const Program& prog, int32_t index, Load& out) {
    uint64_t mask = ~uint64_t{0};
    const Node* n = node_at(prog, index);
    while (n && n->kind == ArgKind::type) {
        mask &= n->cast_mask;
        n = node_at(prog, n->a);
    }
    if (!n) return false;
    if (n->kind == ArgKind::field) {
        if (n->field < 0) return false;
        const PField& f = prog.fields[static_cast<size_t>(n->field)];
        if (!loadable_size(f.size)) return false;
        out = Load{f.offset, f.size, mask, mask & size_mask(f.size)};
        return true;
    }
    if (n->kind != ArgKind::op || !n->op_index) return false;
    const Node* index_node = node_at(prog, n->b);
    if (!index_node || index_node->kind != ArgKind::atom) return false;
    const Node* array = node_at(prog, n->a);
    const Node* cast = nullptr;
    while (array && array->kind == ArgKind::type) {
        if (!cast) cast = array;
        array = node_at(prog, array->a);
    }
    if (!array || array->kind != ArgKind::field || array->field < 0) return false;
    const PField& f = prog.fields[static_cast<size_t>(array->field)];
    if (!loadable_size(f.elementsize)) return false;
    if (cast) mask &= cast->ptr_cast_mask;
    out = Load{f.offset + static_cast<uint32_t>(index_node->num) * f.elementsize, f.elementsize, mask,
               mask & size_mask(f.elementsize)};
    return true;
}

uint32_t CompiledPrint::add_text(std::string_view s) {
    const auto at = static_cast<uint32_t>(text_.size());
    text_.append(s);
    return at;
}

void CompiledPrint::add_literal(std::string_view s) {
    pending_.append(s);
    fixed_room_ += s.size();
}

// The operation with the pending literal in front of it (what does not fit goes first, alone).
void CompiledPrint::push(Op op, const Detail* detail) {
    if (detail) {
        op.detail = static_cast<uint32_t>(details_.size());
        details_.push_back(*detail);
    }
    std::string_view lit = pending_;
    while (lit.size() > kLiteral) {
        Op text;
        std::memcpy(text.literal, lit.data(), kLiteral);
        text.literal_len = kLiteral;
        ops_.push_back(text);
        lit.remove_prefix(kLiteral);
    }
    std::memcpy(op.literal, lit.data(), lit.size());
    op.literal_len = static_cast<uint8_t>(lit.size());
    pending_.clear();
    ops_.push_back(op);
}

bool CompiledPrint::add_integer(const Program& prog, const Segment& seg, Op& op) {
    if (!bounded_spec(seg.spec) || !compile_load(prog, seg.arg, op.load)) return false;
    fixed_room_ += std::max(int_room(seg.spec), kStoreSlack);
    if (!seg.spec.plain) {
        op.kind = OpKind::integer;
        return true;
    }
    // write_plain_int's cut to the C type of the length modifier, folded into the load
    const int bits = seg.ls <= -2 ? 8 : seg.ls == -1 ? 16 : seg.ls == 0 ? 32 : 64;
    const uint64_t cut = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
    op.load.mask &= cut;
    op.load.wide_mask &= cut;
    op.sign_shift = static_cast<uint8_t>(64 - bits);
    const char c = seg.spec.conv;
    op.kind = c == 'x' ? OpKind::hex : c == 'X' ? OpKind::hex_upper : c == 'u' ? OpKind::udec : OpKind::sdec;
    return true;
}

bool CompiledPrint::add_string(const Program& prog, const Segment& seg, const Node* arg, Op& op,
                               Detail& detail) {
    if (!bounded_spec(seg.spec) || seg.spec.conv != 's' || !arg) return false;
    const size_t width = seg.spec.width > 0 ? static_cast<size_t>(seg.spec.width) : 0;
    if (arg->kind == ArgKind::field) {
        if (arg->field < 0) return false;
        const PField& f = prog.fields[static_cast<size_t>(arg->field)];
        // a long-sized non-array field prints a printk string or an address
        if (!(f.flags & kTepArray) && f.size == static_cast<uint32_t>(prog.long_size)) return false;
        op.kind = OpKind::char_array;
        detail.field = &f;
        fixed_room_ += width;
        ++record_ops_;
    } else if (arg->kind == ArgKind::string) {
        if (arg->field < 0) return false;
        op.kind = OpKind::dyn_string;
        detail.field = &prog.fields[static_cast<size_t>(arg->field)];
        fixed_room_ += width;
        ++record_ops_;
    } else if (arg->kind == ArgKind::symbol) {
        if (!compile_load(prog, arg->a, op.load)) return false;
        op.kind = OpKind::symbol;
        detail.first_symbol = static_cast<uint32_t>(symbols_.size());
        detail.symbols = static_cast<uint32_t>(arg->syms.size());
        size_t longest = 0;
        for (const FlagSym& fs : arg->syms) {
            symbols_.push_back(Symbol{fs.fval, add_text(fs.str), static_cast<uint32_t>(fs.str.size())});
            longest = std::max(longest, fs.str.size());
        }
        fixed_room_ += std::max(width + longest, kHexRoom);
    } else {
        return false;
    }
    return true;
}

bool CompiledPrint::add_segment(const Program& prog, const Segment& seg) {
    if (seg.kind == SegKind::text) {
        add_literal(seg.fmt);
        return true;
    }
    if (seg.arg < 0 || seg.len_arg >= 0) return false;
    Op op;
    Detail detail;
    detail.spec = seg.spec;
    op.ls = static_cast<int8_t>(seg.ls);
    const Node* arg = node_at(prog, seg.arg);
    switch (seg.kind) {
        case SegKind::digit:
            if (!add_integer(prog, seg, op)) return false;
            break;
        case SegKind::pointer: {
            // only the plain %p (no letter after it that names another printing)
            const size_t p = seg.fmt.find('p');
            if (p == std::string::npos || p + 1 != seg.fmt.size()) return false;
            if (arg && arg->kind == ArgKind::bstring) return false;
            if (!compile_load(prog, seg.arg, op.load)) return false;
            op.kind = OpKind::pointer;
            fixed_room_ += kHexRoom;
            break;
        }
        case SegKind::string:
            if (!add_string(prog, seg, arg, op, detail)) return false;
            break;
        case SegKind::text:
            break;
    }
    const bool uses_detail = op.kind == OpKind::integer || op.kind == OpKind::char_array ||
                             op.kind == OpKind::dyn_string || op.kind == OpKind::symbol;
    push(op, uses_detail ? &detail : nullptr);
    return true;
}

std::unique_ptr<CompiledPrint> CompiledPrint::compile(const Program& prog) {
    if (prog.failed || prog.is_bprint) return nullptr;
    auto c = std::unique_ptr<CompiledPrint>(new CompiledPrint());
    for (const Segment& s : prog.segments)
        if (!c->add_segment(prog, s)) return nullptr;
    if (!c->pending_.empty()) c->push(Op{});
    c->pending_.shrink_to_fit();
    c->fixed_room_ += kStoreSlack;
    return c;
}

size_t CompiledPrint::write(char* dst, const RecordView& rec) const noexcept {
    char* p = dst;
    for (const Op& op : ops_) {
        std::memcpy(p, op.literal, kLiteral);
        p += op.literal_len;
        switch (op.kind) {
            case OpKind::none:
                break;
            case OpKind::hex:
                p += output::write_hex16(p, op.load.read(rec));
                break;
            case OpKind::hex_upper:
                p += output::write_hex16(p, op.load.read(rec), true);
                break;
            case OpKind::udec:
                p += output::write_u64(p, op.load.read(rec));
                break;
            case OpKind::sdec: {
                const uint64_t v = op.load.read(rec);
                p += output::write_i64(p, static_cast<int64_t>(v << op.sign_shift) >> op.sign_shift);
                break;
            }
            case OpKind::integer:
                p += write_int(p, details_[op.detail].spec, op.ls, op.load.read(rec));
                break;
            case OpKind::char_array: {
                const Detail& d = details_[op.detail];
                const PField& f = *d.field;
                std::string_view s;
                if (f.offset < rec.size) {
                    const uint32_t avail = rec.size - f.offset;
                    const uint32_t len = f.size && f.size < avail ? f.size : avail;
                    s = std::string_view(reinterpret_cast<const char*>(rec.data + f.offset), len);
                }
                p += write_str(p, d.spec, s);
                break;
            }
            case OpKind::dyn_string: {
                const Detail& d = details_[op.detail];
                uint32_t off, len;
                rec.dynamic_offset(*d.field, off, len);
                if (!len || off >= rec.size) break;
                p += write_str(
                    p, d.spec,
                    std::string_view(reinterpret_cast<const char*>(rec.data + off), rec.size - off));
                break;
            }
            case OpKind::pointer: {
                const uint64_t v = op.load.read(rec);
                if (v) {
                    p += put_0x(p, v);
                } else {
                    std::memcpy(p, "(nil)", 5);
                    p += 5;
                }
                break;
            }
            case OpKind::symbol: {
                const Detail& d = details_[op.detail];
                const auto v = static_cast<int64_t>(op.load.read(rec));
                const Symbol* sym = nullptr;
                for (uint32_t i = 0; i < d.symbols && !sym; ++i)
                    if (symbols_[d.first_symbol + i].value == v) sym = &symbols_[d.first_symbol + i];
                if (sym)
                    p += write_str(p, d.spec, std::string_view(text_.data() + sym->text, sym->len));
                else
                    p += put_0x(p, static_cast<uint64_t>(v));
                break;
            }
        }
    }
    return static_cast<size_t>(p - dst);
}

}  // namespace ringscope::format
