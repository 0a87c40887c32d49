#include "framework/format/compiled_print.hpp"

#include <algorithm>
#include <cstring>

#include "framework/format/printf_format.hpp"
#include "framework/output/number_format.hpp"

namespace ringscope::format {
namespace {

// Literal text is copied kTextChunk bytes at a time (a fixed-size copy is a single store); the
// pool and the room carry that much slack.
constexpr size_t kTextChunk = 16;
constexpr size_t kHexRoom = 18;  // "0x" + 16 digits

const Node* node_at(const Program& p, int32_t i) {
    return i < 0 ? nullptr : &p.nodes[static_cast<size_t>(i)];
}

bool loadable_size(uint32_t n) {
    return n == 1 || n == 2 || n == 4 || n == 8;
}

size_t put_0x(char* p, uint64_t v) {
    p[0] = '0';
    p[1] = 'x';
    return 2 + output::write_hex(p + 2, v);
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
        out = Load{f.offset, f.size, mask};
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
    out = Load{f.offset + static_cast<uint32_t>(index_node->num) * f.elementsize, f.elementsize, mask};
    return true;
}

uint32_t CompiledPrint::add_text(std::string_view s) {
    const auto at = static_cast<uint32_t>(text_.size());
    text_.append(s);
    return at;
}

bool CompiledPrint::add_segment(const Program& prog, const Segment& seg) {
    Op op;
    if (seg.kind == SegKind::text) {
        op.kind = OpKind::text;
        op.text = add_text(seg.fmt);
        op.len = static_cast<uint32_t>(seg.fmt.size());
        fixed_room_ += seg.fmt.size();
        ops_.push_back(op);
        return true;
    }
    if (seg.arg < 0 || seg.len_arg >= 0) return false;
    op.spec = seg.spec;
    op.ls = static_cast<int8_t>(seg.ls);
    const Node* arg = node_at(prog, seg.arg);
    const size_t width = seg.spec.width > 0 ? static_cast<size_t>(seg.spec.width) : 0;
    switch (seg.kind) {
        case SegKind::digit:
            if (!bounded_spec(seg.spec) || !compile_load(prog, seg.arg, op.load)) return false;
            op.kind = seg.spec.plain ? OpKind::plain_int : OpKind::integer;
            op.conv = seg.spec.conv;
            fixed_room_ += int_room(seg.spec);
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
        case SegKind::string: {
            if (!bounded_spec(seg.spec) || seg.spec.conv != 's' || !arg) return false;
            if (arg->kind == ArgKind::field) {
                if (arg->field < 0) return false;
                const PField& f = prog.fields[static_cast<size_t>(arg->field)];
                // a long-sized non-array field prints a printk string or an address
                if (!(f.flags & kTepArray) && f.size == static_cast<uint32_t>(prog.long_size)) return false;
                op.kind = OpKind::char_array;
                op.field = &f;
                fixed_room_ += width;
                ++record_ops_;
            } else if (arg->kind == ArgKind::string) {
                if (arg->field < 0) return false;
                op.kind = OpKind::dyn_string;
                op.field = &prog.fields[static_cast<size_t>(arg->field)];
                fixed_room_ += width;
                ++record_ops_;
            } else if (arg->kind == ArgKind::symbol) {
                if (!compile_load(prog, arg->a, op.load)) return false;
                op.kind = OpKind::symbol;
                op.text = static_cast<uint32_t>(symbols_.size());
                op.len = static_cast<uint32_t>(arg->syms.size());
                size_t longest = 0;
                for (const FlagSym& fs : arg->syms) {
                    symbols_.push_back(
                        Symbol{fs.fval, add_text(fs.str), static_cast<uint32_t>(fs.str.size())});
                    longest = std::max(longest, fs.str.size());
                }
                fixed_room_ += std::max(width + longest, kHexRoom);
            } else {
                return false;
            }
            break;
        }
        case SegKind::text:
            break;
    }
    ops_.push_back(op);
    return true;
}

std::unique_ptr<CompiledPrint> CompiledPrint::compile(const Program& prog) {
    if (prog.failed || prog.is_bprint) return nullptr;
    auto c = std::unique_ptr<CompiledPrint>(new CompiledPrint());
    for (const Segment& s : prog.segments)
        if (!c->add_segment(prog, s)) return nullptr;
    c->text_.append(kTextChunk, '\0');
    c->fixed_room_ += kTextChunk;
    return c;
}

size_t CompiledPrint::write(char* dst, const RecordView& rec) const noexcept {
    char* p = dst;
    for (const Op& op : ops_) {
        switch (op.kind) {
            case OpKind::text:
                if (op.len <= kTextChunk)
                    std::memcpy(p, text_.data() + op.text, kTextChunk);
                else
                    std::memcpy(p, text_.data() + op.text, op.len);
                p += op.len;
                break;
            case OpKind::plain_int:
                p += write_plain_int(p, op.conv, op.ls, op.load.read(rec));
                break;
            case OpKind::integer:
                p += write_int(p, op.spec, op.ls, op.load.read(rec));
                break;
            case OpKind::char_array: {
                const PField& f = *op.field;
                std::string_view s;
                if (f.offset < rec.size) {
                    const uint32_t avail = rec.size - f.offset;
                    const uint32_t len = f.size && f.size < avail ? f.size : avail;
                    s = std::string_view(reinterpret_cast<const char*>(rec.data + f.offset), len);
                }
                p += write_str(p, op.spec, s);
                break;
            }
            case OpKind::dyn_string: {
                uint32_t off, len;
                rec.dynamic_offset(*op.field, off, len);
                if (!len || off >= rec.size) break;
                p += write_str(
                    p, op.spec,
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
                const auto v = static_cast<int64_t>(op.load.read(rec));
                const Symbol* sym = nullptr;
                for (uint32_t i = 0; i < op.len && !sym; ++i)
                    if (symbols_[op.text + i].value == v) sym = &symbols_[op.text + i];
                if (sym)
                    p += write_str(p, op.spec, std::string_view(text_.data() + sym->text, sym->len));
                else
                    p += put_0x(p, static_cast<uint64_t>(v));
                break;
            }
        }
    }
    return static_cast<size_t>(p - dst);
}

}  // namespace ringscope::format
