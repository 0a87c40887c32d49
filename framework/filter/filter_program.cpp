#include "framework/filter/filter_program.hpp"

#include <cinttypes>
#include <cstdio>
#include <cstring>

#include <ringscope/resolver.hpp>

namespace ringscope::filter {

Program Program::compile(const Tree& tree) {
    Program p;
    p.root_ = p.pack(tree, tree.root);
    p.description_ = tree_to_string(tree);
    return p;
}

int32_t Program::pack(const Tree& tree, int32_t node) {
    if (node < 0) return -1;
    const Node& n = tree.nodes[static_cast<size_t>(node)];
    Instr in;
    in.kind = n.kind;
    in.op = n.op;
    in.truth = n.truth;
    in.number = n.number;
    if (n.field >= 0) {
        fields_.push_back(tree.fields[static_cast<size_t>(n.field)]);
        in.field = static_cast<int32_t>(fields_.size() - 1);
    }
    if (n.kind == NodeKind::str) {
        if (n.regex >= 0) {
            regexes_.push_back(tree.regexes[static_cast<size_t>(n.regex)]);
            in.aux = static_cast<int32_t>(regexes_.size() - 1);
        } else {
            strings_.push_back(n.text);
            in.aux = static_cast<int32_t>(strings_.size() - 1);
        }
    }
    // Children of str/value/field/boolean nodes are dead after folding.
    if (n.kind == NodeKind::exp || n.kind == NodeKind::num || n.kind == NodeKind::op) {
        in.left = pack(tree, n.left);
        in.right = pack(tree, n.right);
    }
    if (n.kind == NodeKind::num && in.left >= 0 && in.right >= 0) {
        const Instr& l = code_[static_cast<size_t>(in.left)];
        const Instr& r = code_[static_cast<size_t>(in.right)];
        if (l.kind == NodeKind::field && r.kind == NodeKind::value && ValueKind(r.op) == ValueKind::number) {
            in.direct_field = l.field;
            in.number = r.number;
        }
    }
    code_.push_back(in);
    return static_cast<int32_t>(code_.size() - 1);
}

int Program::evaluate(const Event& ev) const noexcept {
    return eval_bool(root_, ev);
}

uint64_t Program::field_value(const FieldRef& f, const Event& ev) const noexcept {
    switch (f.kind) {
        case FieldKind::comm:
            // libtraceevent uses the address of the comm string as COMM's number.
            return reinterpret_cast<uintptr_t>(ev.comm().data());
        case FieldKind::cpu:
            return static_cast<uint64_t>(static_cast<int64_t>(ev.cpu()));
        case FieldKind::regular:
            break;
    }
    const FieldHandle h{f.offset, f.size, f.is_signed ? uint32_t(kFieldSigned) : 0u, true};
    return f.is_signed ? static_cast<uint64_t>(ev.i64(h)) : ev.u64(h);
}

std::string_view Program::field_string(const FieldRef& f, const Event& ev, char* scratch,
                                       size_t cap) const noexcept {
    if (f.kind == FieldKind::comm) return ev.comm();
    if (f.kind == FieldKind::regular && f.is_string) {
        const auto payload = ev.payload();
        const char* base = reinterpret_cast<const char*>(payload.data());
        const size_t n = payload.size();
        if (!f.is_dynamic) {
            if (f.offset >= n) return {};
            const size_t avail = std::min<size_t>(f.size, n - f.offset);
            return {base + f.offset, strnlen(base + f.offset, avail)};
        }
        const uint32_t word = static_cast<uint32_t>(ev.u64(FieldHandle{f.offset, 4, 0, true}));
        size_t off = word & 0xffff;
        const size_t len = word >> 16;
        if (f.is_relative) off += size_t(f.offset) + f.size;
        if (off >= n) return {};
        const size_t avail = n - off;
        // libtraceevent checks the byte before the end of the string (val[len - 1]); when it is
        // not NUL it compares only a copy of the field's own size (4 bytes for a __data_loc).
        bool cut = false;
        if (len > 0 && len <= avail)
            cut = base[off + len - 1] != 0;
        else if (len == 0 && off > 0)
            cut = base[off - 1] != 0;
        size_t limit = avail;
        if (cut)
            limit = std::min<size_t>(f.size, avail);
        else if (len > 0 && len <= avail)
            limit = len;
        return {base + off, strnlen(base + off, limit)};
    }
    const uint64_t v = field_value(f, ev);
    if (f.kind == FieldKind::regular && f.is_symbol) {
        if (auto sym = ev.context().resolvers().lookup(kKernelDomain, v)) return sym->name;
    }
    const int len = std::snprintf(scratch, cap, "0x%" PRIx64, v);
    return {scratch, len > 0 ? static_cast<size_t>(len) : 0};
}

uint64_t Program::eval_value(int32_t i, const Event& ev, bool& err) const noexcept {
    if (i < 0) {
        err = true;
        return 0;
    }
    const Instr& in = code_[static_cast<size_t>(i)];
    switch (in.kind) {
        case NodeKind::field:
            return field_value(fields_[static_cast<size_t>(in.field)], ev);
        case NodeKind::value:
            if (ValueKind(in.op) != ValueKind::number) err = true;  // TEP_ERRNO__NOT_A_NUMBER
            return in.number;
        case NodeKind::exp: {
            const uint64_t l = eval_value(in.left, ev, err);
            const uint64_t r = eval_value(in.right, ev, err);
            if (err) return 0;
            switch (ExpOp(in.op)) {
                case ExpOp::add:
                    return l + r;
                case ExpOp::sub:
                    return l - r;
                case ExpOp::mul:
                    return l * r;
                case ExpOp::div:
                case ExpOp::mod:
                    if (r == 0) {  // SIGFPE in libtraceevent
                        err = true;
                        return 0;
                    }
                    return ExpOp(in.op) == ExpOp::div ? l / r : l % r;
                // Shifts of 64 or more are undefined in C; x86 masks the count, and so do we.
                case ExpOp::rshift:
                    return l >> (r & 63);
                case ExpOp::lshift:
                    return l << (r & 63);
                case ExpOp::band:
                    return l & r;
                case ExpOp::bor:
                    return l | r;
                case ExpOp::bxor:
                    return l ^ r;
                case ExpOp::bnot:
                    break;  // TEP_ERRNO__INVALID_EXP_TYPE
            }
            err = true;
            return 0;
        }
        default:
            err = true;  // TEP_ERRNO__INVALID_ARG_TYPE
            return 0;
    }
}

int Program::eval_bool(int32_t i, const Event& ev) const noexcept {
    if (i < 0) return -1;
    const Instr& in = code_[static_cast<size_t>(i)];
    switch (in.kind) {
        case NodeKind::boolean:
            return in.truth ? 1 : 0;
        case NodeKind::op: {
            if (BoolOp(in.op) == BoolOp::lnot) {
                const int r = eval_bool(in.right, ev);
                return r < 0 ? r : !r;
            }
            const int l = eval_bool(in.left, ev);
            if (l < 0) return l;
            if (BoolOp(in.op) == BoolOp::land ? !l : l) return l;
            return eval_bool(in.right, ev);
        }
        case NodeKind::num: {
            bool err = false;
            uint64_t l, r;
            if (in.direct_field >= 0) {
                l = field_value(fields_[static_cast<size_t>(in.direct_field)], ev);
                r = in.number;
            } else {
                l = eval_value(in.left, ev, err);
                r = eval_value(in.right, ev, err);
                if (err) return -1;
            }
            switch (CmpOp(in.op)) {
                case CmpOp::eq:
                    return l == r;
                case CmpOp::ne:
                    return l != r;
                case CmpOp::gt:
                    return l > r;
                case CmpOp::lt:
                    return l < r;
                case CmpOp::ge:
                    return l >= r;
                case CmpOp::le:
                    return l <= r;
                default:
                    return -1;
            }
        }
        case NodeKind::str: {
            char scratch[32];
            const std::string_view s =
                field_string(fields_[static_cast<size_t>(in.field)], ev, scratch, sizeof scratch);
            switch (CmpOp(in.op)) {
                case CmpOp::match:
                    return s == strings_[static_cast<size_t>(in.aux)];
                case CmpOp::not_match:
                    return s != strings_[static_cast<size_t>(in.aux)];
                case CmpOp::regex:
                    return regexes_[static_cast<size_t>(in.aux)]->search(s);
                case CmpOp::not_regex:
                    return !regexes_[static_cast<size_t>(in.aux)]->search(s);
                default:
                    return -1;
            }
        }
        case NodeKind::exp:
        case NodeKind::value:
        case NodeKind::field: {
            bool err = false;
            const uint64_t v = eval_value(i, ev, err);
            return err ? -1 : v != 0;
        }
    }
    return -1;
}

}  // namespace ringscope::filter
