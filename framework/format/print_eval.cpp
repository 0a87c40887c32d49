// Evaluation of a print fmt's argument trees against one record (event-parse.c's eval_num_arg())
// and the walk over the format's segments (pretty_print()); the printers of %s arguments,
// pointers and raw fields live in print_str_arg.cpp, print_pointer.cpp and print_fields.cpp.
#include "framework/format/print_eval.hpp"

#include <cstdio>

#include "framework/format/printf_format.hpp"

namespace ringscope::format {

const Node* PrintEvaluator::strip_casts(const Node* n) const noexcept {
    while (n && n->kind == ArgKind::type) n = node(n->a);
    return n;
}

uint64_t PrintEvaluator::eval_ref(Ref r) const noexcept {
    if (r.barg) return r.barg->is_string ? 0 : r.barg->val;
    return eval(r.node);
}

// REC->field[i], (type)REC->field[i] and __get_dynamic_array(x)[i]: an element read from the record.
uint64_t PrintEvaluator::eval_index(const Node* n) const noexcept {
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
    if (n->op_index) return eval_index(n);
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

}  // namespace ringscope::format
