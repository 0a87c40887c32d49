#include "framework/filter/filter_tree.hpp"

#include <cctype>
#include <cstdlib>
#include <optional>

namespace ringscope::filter {
namespace {

// Bounds the parser's and the evaluator's recursion on hostile input.
constexpr size_t kMaxTokens = 1024;

enum class OpClass : uint8_t { none, boolean, lnot, exp, cmp };

OpClass classify(const std::string& t, uint8_t& op) {
    static constexpr struct {
        const char* text;
        OpClass cls;
        uint8_t op;
    } kOps[] = {
        {"&&", OpClass::boolean, uint8_t(BoolOp::land)}, {"||", OpClass::boolean, uint8_t(BoolOp::lor)},
        {"!", OpClass::lnot, uint8_t(BoolOp::lnot)},     {"+", OpClass::exp, uint8_t(ExpOp::add)},
        {"-", OpClass::exp, uint8_t(ExpOp::sub)},        {"*", OpClass::exp, uint8_t(ExpOp::mul)},
        {"/", OpClass::exp, uint8_t(ExpOp::div)},        {"%", OpClass::exp, uint8_t(ExpOp::mod)},
        {">>", OpClass::exp, uint8_t(ExpOp::rshift)},    {"<<", OpClass::exp, uint8_t(ExpOp::lshift)},
        {"&", OpClass::exp, uint8_t(ExpOp::band)},       {"|", OpClass::exp, uint8_t(ExpOp::bor)},
        {"^", OpClass::exp, uint8_t(ExpOp::bxor)},       {"~", OpClass::exp, uint8_t(ExpOp::bnot)},
        {"==", OpClass::cmp, uint8_t(CmpOp::eq)},        {"!=", OpClass::cmp, uint8_t(CmpOp::ne)},
        {"<", OpClass::cmp, uint8_t(CmpOp::lt)},         {">", OpClass::cmp, uint8_t(CmpOp::gt)},
        {"<=", OpClass::cmp, uint8_t(CmpOp::le)},        {">=", OpClass::cmp, uint8_t(CmpOp::ge)},
        {"=~", OpClass::cmp, uint8_t(CmpOp::regex)},     {"!~", OpClass::cmp, uint8_t(CmpOp::not_regex)},
    };
    for (const auto& o : kOps) {
        if (t == o.text) {
            op = o.op;
            return o.cls;
        }
    }
    return OpClass::none;
}

bool contains(std::string_view hay, std::string_view needle) {
    return hay.find(needle) != hay.npos;
}

FieldRef make_field_ref(const FieldInfo& f) {
    FieldRef r;
    r.name = f.name;
    r.offset = f.offset;
    r.size = f.size;
    r.is_signed = f.flags & kFieldSigned;
    const std::string_view type = f.type;
    r.is_relative = (f.flags & kFieldRelLoc) || type.starts_with("__rel_loc");
    r.is_dynamic = r.is_relative || (f.flags & kFieldDynamic) || type.starts_with("__data_loc");
    // libtraceevent's rules (field_is_string & co.), from the type text, so that they hold
    // whatever flags the format parser chose.
    const bool is_array = (f.flags & kFieldArray) || contains(type, "[");
    r.is_string = (is_array && (contains(type, "char") || contains(type, "u8") || contains(type, "s8"))) ||
                  (r.is_dynamic && f.size == 2);
    r.is_symbol = (f.flags & (kFieldPointer | kFieldLong)) || contains(type, "*") || contains(type, "long");
    return r;
}

enum class Fold : uint8_t { norm, is_false, is_true };

class Builder {
  public:
    Builder(const std::vector<Token>& tokens, size_t expr_size, const EventType& type, size_t base)
        : tokens_(tokens), expr_size_(expr_size), type_(type), base_(base) {}

    Expected<Tree> run() {
        if (tokens_.size() > kMaxTokens)
            return std::move(
                Error(Errc::parse, "Filter too long (more than 1024 tokens)").at_line(1, column(0)));
        int32_t root = -1;
        const Ret r = process(&root, false);
        if (r == Ret::close_paren) fail("unbalanced number of parenthesis");
        if (r != Ret::ok) return std::move(error_);
        tree_.root = root;
        return std::move(tree_);
    }

  private:
    enum class Ret : uint8_t { ok, close_paren, fail };

    int column(size_t end) const {
        // libtraceevent's caret: the last character of the token just read, within the expression.
        size_t c = end == 0 ? 1 : end;
        if (expr_size_ > 0 && c > expr_size_) c = expr_size_;
        return static_cast<int>(base_ + c);
    }
    const Token& next() {
        const Token& t = tokens_[pos_];
        if (pos_ + 1 < tokens_.size()) ++pos_;
        last_end_ = t.end;
        return t;
    }
    Ret fail(std::string msg) {
        error_ = Error(Errc::parse, std::move(msg));
        error_.at_line(1, column(last_end_));
        return Ret::fail;
    }
    Ret syntax() { return fail("Syntax error"); }

    int32_t add(Node n) {
        tree_.nodes.push_back(std::move(n));
        return static_cast<int32_t>(tree_.nodes.size() - 1);
    }
    Node& at(int32_t i) { return tree_.nodes[static_cast<size_t>(i)]; }

    int32_t create_item(const Token& t) {
        Node n;
        if (t.kind == TokenKind::squote || t.kind == TokenKind::dquote) {
            n.kind = NodeKind::value;
            n.op = uint8_t(t.kind == TokenKind::dquote ? ValueKind::string : ValueKind::chr);
            n.text = t.text;
            return add(std::move(n));
        }
        if (std::isdigit(static_cast<unsigned char>(t.text[0]))) {
            n.kind = NodeKind::value;
            n.op = uint8_t(ValueKind::number);
            n.number = std::strtoull(t.text.c_str(), nullptr, 0);
            n.text = t.text;
            return add(std::move(n));
        }
        // tep_find_any_field: common fields first.
        const FieldInfo* f = nullptr;
        for (const auto& c : type_.common_fields)
            if (c.name == t.text) f = &c;
        if (!f)
            for (const auto& c : type_.fields)
                if (c.name == t.text) f = &c;
        FieldRef ref;
        if (f) {
            ref = make_field_ref(*f);
        } else if (t.text == "COMM") {
            ref.kind = FieldKind::comm;
            ref.name = "COMM";
        } else if (t.text == "CPU") {
            ref.kind = FieldKind::cpu;
            ref.name = "CPU";
        } else {
            n.kind = NodeKind::boolean;  // a field this event does not have: FALSE
            n.truth = false;
            return add(std::move(n));
        }
        tree_.fields.push_back(std::move(ref));
        n.kind = NodeKind::field;
        n.field = static_cast<int32_t>(tree_.fields.size() - 1);
        return add(std::move(n));
    }

    bool add_right(int32_t op, int32_t arg) {
        Node& o = at(op);
        switch (o.kind) {
            case NodeKind::exp:
            case NodeKind::op:
                if (o.right >= 0) break;
                o.right = arg;
                return true;
            case NodeKind::num: {
                if (o.right >= 0) break;
                const Node& a = at(arg);
                if (a.kind != NodeKind::value && a.kind != NodeKind::field) {
                    fail("Illegal rvalue");
                    return false;
                }
                // libtraceevent reads a field operand as a value of unknown type: a syntax error.
                if (a.kind == NodeKind::field) break;
                const auto cmp = CmpOp(o.op);
                const bool is_regex = cmp == CmpOp::regex || cmp == CmpOp::not_regex;
                ValueKind vk = ValueKind(a.op);
                if (vk == ValueKind::chr && a.text.size() == 1 && !is_regex) {
                    // libtraceevent compares with the string's address here; the character
                    // code is the evident intent.
                    at(arg).number = static_cast<unsigned char>(a.text[0]);
                    at(arg).op = uint8_t(ValueKind::number);
                    vk = ValueKind::number;
                }
                if (vk == ValueKind::number) {
                    if (is_regex) {
                        fail("Op not allowed with integers");
                        return false;
                    }
                    o.right = arg;
                    return true;
                }
                return to_string_compare(op, arg);
            }
            default:
                break;
        }
        syntax();
        return false;
    }

    // A comparison with a quoted operand becomes a string compare (or FALSE on a missing field).
    bool to_string_compare(int32_t op, int32_t arg) {
        const int32_t left = at(op).left;
        const auto cmp = CmpOp(at(op).op);
        std::string str = at(arg).text;
        if (at(left).kind == NodeKind::boolean) {
            Node& o = at(op);
            o.kind = NodeKind::boolean;
            o.truth = false;
            o.left = o.right = -1;
            return true;
        }
        if (at(left).kind != NodeKind::field) {
            fail("Illegal lvalue for string comparison");
            return false;
        }
        CmpOp str_op;
        int32_t regex = -1;
        switch (cmp) {
            case CmpOp::eq:
                str_op = CmpOp::match;
                break;
            case CmpOp::ne:
                str_op = CmpOp::not_match;
                break;
            case CmpOp::regex:
            case CmpOp::not_regex: {
                std::shared_ptr<const Regex> re = Regex::compile(str);
                if (!re) {
                    fail("RegEx '" + str + "' did not compute");
                    return false;
                }
                tree_.regexes.push_back(std::move(re));
                regex = static_cast<int32_t>(tree_.regexes.size() - 1);
                str_op = cmp;
                break;
            }
            default:
                fail("Illegal comparison for string");
                return false;
        }
        Node& o = at(op);
        o.kind = NodeKind::str;
        o.op = uint8_t(str_op);
        o.field = at(left).field;
        o.regex = regex;
        o.text = std::move(str);
        o.left = o.right = -1;
        return true;
    }

    bool add_left(int32_t op, int32_t arg) {
        Node& o = at(op);
        switch (o.kind) {
            case NodeKind::exp:
            case NodeKind::op:
                o.left = arg;
                return true;
            case NodeKind::num:
                if (at(arg).kind != NodeKind::field && at(arg).kind != NodeKind::boolean) return false;
                o.left = arg;
                return true;
            default:
                return false;
        }
    }

    bool op_done(int32_t n) {
        const Node& o = at(n);
        switch (o.kind) {
            case NodeKind::exp:
            case NodeKind::op:
            case NodeKind::num:
                return o.right >= 0;
            case NodeKind::str:
            case NodeKind::boolean:
                return true;
            default:
                return false;
        }
    }

    // libtraceevent's test_arg/reparent: constant folding of FALSE leaves, replacing `slot`.
    // Visiting a missing operand is where libtraceevent dereferences NULL: a syntax error here.
    bool fold(int32_t& slot, Fold& out) {
        if (slot < 0) {
            syntax();
            return false;
        }
        Node& n = at(slot);
        switch (n.kind) {
            case NodeKind::boolean:
                out = n.truth ? Fold::is_true : Fold::is_false;
                return true;
            case NodeKind::str:
            case NodeKind::value:
            case NodeKind::field:
                out = Fold::norm;
                return true;
            case NodeKind::exp:
            case NodeKind::num: {
                int32_t l = n.left, r = n.right;
                if (!fold(l, out)) return false;
                if (out != Fold::norm) return true;
                if (!fold(r, out)) return false;
                return true;
            }
            case NodeKind::op:
                break;
        }
        const auto bop = BoolOp(n.op);
        if (bop != BoolOp::lnot) {
            int32_t left = n.left;
            Fold lv;
            if (!fold(left, lv)) return false;
            at(slot).left = left;
            if (lv != Fold::norm) {
                if ((lv == Fold::is_true && bop == BoolOp::lor) ||
                    (lv == Fold::is_false && bop == BoolOp::land)) {
                    out = lv;
                    return true;
                }
                int32_t right = at(slot).right;
                if (!fold(right, out)) return false;
                at(slot).right = right;
                if (out != Fold::norm) return true;
                slot = right;  // TRUE && x, FALSE || x: x
                return true;
            }
        }
        int32_t right = at(slot).right;
        Fold rv;
        if (!fold(right, rv)) return false;
        at(slot).right = right;
        out = Fold::norm;
        if (rv == Fold::is_true) {
            if (bop == BoolOp::lor)
                out = Fold::is_true;
            else if (bop == BoolOp::lnot)
                out = Fold::is_false;
            else
                slot = at(slot).left;
        } else if (rv == Fold::is_false) {
            if (bop == BoolOp::land)
                out = Fold::is_false;
            else if (bop == BoolOp::lnot)
                out = Fold::is_true;
            else
                slot = at(slot).left;
        }
        return true;
    }

    // What one level of process() has built so far.
    struct Level {
        int32_t current_op = -1, current_exp = -1, left_item = -1;
    };
    // A token's outcome: nothing to read on, else what process() returns.
    using Step = std::optional<Ret>;

    // libtraceevent's process_filter: one level of the expression (a parenthesis, or the single
    // operand of a `!` when is_not).
    Ret process(int32_t* parg, bool is_not) {
        Level lv;
        *parg = -1;
        for (;;) {
            const Token& t = next();
            if (t.kind == TokenKind::end) break;
            Step step;
            switch (t.kind) {
                case TokenKind::item:
                case TokenKind::dquote:
                case TokenKind::squote:
                    step = on_item(lv, t, is_not, parg);
                    break;
                case TokenKind::delim:
                    if (t.text == ",") return fail("Illegal token ','");
                    step = t.text == "(" ? on_open(lv, is_not, parg) : on_close(lv, parg);
                    break;
                case TokenKind::op:
                    step = on_op(lv, t);
                    break;
                case TokenKind::end:
                    break;
            }
            if (step) return *step;
        }
        return finish(lv, parg);
    }

    Step on_item(Level& lv, const Token& t, bool is_not, int32_t* parg) {
        const int32_t arg = create_item(t);
        if (lv.left_item < 0) {
            lv.left_item = arg;
        } else if (lv.current_exp >= 0) {
            if (!add_right(lv.current_exp, arg)) return Ret::fail;
            lv.left_item = -1;
            if (is_not) {
                if (lv.current_op >= 0) return syntax();
                *parg = lv.current_exp;
                return Ret::ok;
            }
        } else {
            return syntax();
        }
        return std::nullopt;
    }

    Step on_open(Level& lv, bool is_not, int32_t* parg) {
        if (lv.left_item >= 0) return fail("Open paren can not come after item");
        if (lv.current_exp >= 0) return fail("Open paren can not come after expression");
        int32_t sub = -1;
        const Ret r = process(&sub, false);
        if (r != Ret::close_paren) {
            if (r == Ret::ok) fail("Unbalanced number of '('");
            return Ret::fail;
        }
        if (is_not) {
            if (lv.current_op >= 0) return syntax();
            *parg = sub;
            return Ret::ok;
        }
        if (lv.current_op >= 0) {
            if (!add_right(lv.current_op, sub)) return Ret::fail;
        } else {
            lv.current_exp = sub;
        }
        return std::nullopt;
    }

    Step on_close(const Level& lv, int32_t* parg) {
        if (lv.current_op < 0 && lv.current_exp < 0) return syntax();
        if (lv.current_exp >= 0 && !op_done(lv.current_exp)) return syntax();
        if (lv.current_op >= 0 && !op_done(lv.current_op)) return syntax();
        *parg = lv.current_op >= 0 ? lv.current_op : lv.current_exp;
        return Ret::close_paren;
    }

    Step on_op(Level& lv, const Token& t) {
        uint8_t op = 0;
        const OpClass cls = classify(t.text, op);
        switch (cls) {
            case OpClass::boolean:
                if (lv.current_exp < 0 && lv.current_op < 0) return syntax();
                [[fallthrough]];
            case OpClass::lnot:
                if (lv.left_item >= 0) return syntax();
                break;
            case OpClass::exp:
            case OpClass::cmp:
                if (lv.left_item < 0) return syntax();
                break;
            case OpClass::none:
                return fail("Unknown op token " + t.text);
        }
        Node n;
        n.op = op;
        if (cls == OpClass::boolean) {
            n.kind = NodeKind::op;
            n.left = lv.current_op >= 0 ? lv.current_op : lv.current_exp;
            lv.current_op = add(std::move(n));
            lv.current_exp = -1;
        } else if (cls == OpClass::lnot) {
            n.kind = NodeKind::op;
            const int32_t a = add(std::move(n));
            if (lv.current_op >= 0 && !add_right(lv.current_op, a)) return Ret::fail;
            lv.current_exp = a;
            int32_t sub = -1;
            const Ret r = process(&sub, true);
            if (r == Ret::close_paren) return fail("unbalanced number of parenthesis");
            if (r != Ret::ok) return r;
            if (!add_right(lv.current_exp, sub)) return Ret::fail;
        } else {
            n.kind = cls == OpClass::exp ? NodeKind::exp : NodeKind::num;
            const int32_t a = add(std::move(n));
            if (lv.current_op >= 0 && !add_right(lv.current_op, a)) return Ret::fail;
            if (!add_left(a, lv.left_item)) return syntax();
            lv.current_exp = a;
        }
        return std::nullopt;
    }

    // The end of the tokens: the level's tree, its FALSE/TRUE leaves folded.
    Ret finish(Level& lv, int32_t* parg) {
        if (lv.current_op < 0 && lv.current_exp < 0) return syntax();
        if (lv.current_op < 0) lv.current_op = lv.current_exp;
        Fold v;
        if (!fold(lv.current_op, v)) return Ret::fail;
        if (v != Fold::norm) {
            Node b;
            b.kind = NodeKind::boolean;
            b.truth = v == Fold::is_true;
            lv.current_op = add(std::move(b));
        }
        *parg = lv.current_op;
        return Ret::ok;
    }

    const std::vector<Token>& tokens_;
    size_t expr_size_;
    const EventType& type_;
    size_t base_;
    size_t pos_ = 0;
    uint32_t last_end_ = 0;
    Tree tree_;
    Error error_;
};

std::string to_string(const Tree& t, int32_t i) {
    if (i < 0) return {};
    const Node& n = t.nodes[static_cast<size_t>(i)];
    switch (n.kind) {
        case NodeKind::boolean:
            return n.truth ? "TRUE" : "FALSE";
        case NodeKind::field:
            return t.fields[static_cast<size_t>(n.field)].name;
        case NodeKind::value:
            if (ValueKind(n.op) == ValueKind::number) return std::to_string(static_cast<long long>(n.number));
            return "\"" + n.text + "\"";
        case NodeKind::exp: {
            static constexpr const char* kOps[] = {"+", "-", "*", "/", "%", ">>", "<<", "&", "|", "^"};
            const char* op = n.op < 10 ? kOps[n.op] : "[ERROR IN EXPRESSION TYPE]";
            return to_string(t, n.left) + " " + op + " " + to_string(t, n.right);
        }
        case NodeKind::num: {
            static constexpr const char* kOps[] = {"==", "!=", ">", "<", ">=", "<="};
            if (n.op >= 6) return {};
            return to_string(t, n.left) + " " + kOps[n.op] + " " + to_string(t, n.right);
        }
        case NodeKind::str: {
            const char* op = "==";
            switch (CmpOp(n.op)) {
                case CmpOp::not_match:
                    op = "!=";
                    break;
                case CmpOp::regex:
                    op = "=~";
                    break;
                case CmpOp::not_regex:
                    op = "!~";
                    break;
                default:
                    break;
            }
            return t.fields[static_cast<size_t>(n.field)].name + " " + op + " \"" + n.text + "\"";
        }
        case NodeKind::op:
            break;
    }
    // op_to_str, with its consolidation of TRUE/FALSE operands.
    const std::string right = to_string(t, n.right);
    const int rv = right == "TRUE" ? 1 : right == "FALSE" ? 0 : -1;
    if (BoolOp(n.op) == BoolOp::lnot) {
        if (rv >= 0) return rv ? "FALSE" : "TRUE";
        return "!(" + right + ")";
    }
    const bool is_and = BoolOp(n.op) == BoolOp::land;
    const std::string left = to_string(t, n.left);
    const int lv = left == "TRUE" ? 1 : left == "FALSE" ? 0 : -1;
    if (lv >= 0) {
        if ((is_and && !lv) || (!is_and && lv)) return left;
        if (rv >= 0) return (is_and ? (lv && rv) : (lv || rv)) ? "TRUE" : "FALSE";
    }
    if (rv >= 0) {
        if ((is_and && !rv) || (!is_and && rv)) return right;
        return left;
    }
    return "(" + left + ") " + (is_and ? "&&" : "||") + " (" + right + ")";
}

}  // namespace

Expected<Tree> build_tree(const std::vector<Token>& tokens, size_t expr_size, const EventType& type,
                          size_t column_base) {
    return Builder(tokens, expr_size, type, column_base).run();
}

std::string tree_to_string(const Tree& tree) {
    return to_string(tree, tree.root);
}

}  // namespace ringscope::filter
