// The print fmt parser proper: the argument expressions (operators with event-parse.c's
// precedence quirks, `?:`, `[]`, casts, REC->field) and the helpers both it and printing use.
#include "framework/format/print_parser.hpp"

#include <cctype>
#include <cstdlib>
#include <cstring>

namespace ringscope::format {

int op_prio(const std::string& op) {
    if (op.size() == 1) {
        switch (op[0]) {
            case '~':
            case '!':
                return 4;
            case '*':
            case '/':
            case '%':
                return 6;
            case '+':
            case '-':
                return 7;
            case '<':
            case '>':
                return 9;
            case '&':
                return 11;
            case '^':
                return 12;
            case '|':
                return 13;
            case '?':
                return 16;
            default:
                return -1;
        }
    }
    if (op == "++" || op == "--") return 3;
    if (op == ">>" || op == "<<") return 8;
    if (op == ">=" || op == "<=") return 9;
    if (op == "==" || op == "!=") return 10;
    if (op == "&&") return 14;
    if (op == "||") return 15;
    return -1;
}

uint64_t eval_type_str(uint64_t val, const std::string& type, bool pointer) {
    size_t len = type.size();
    if (len < 2) return val;
    if (pointer) {
        if (type[len - 1] != '*') return val;
        return eval_type_str(val, type.substr(0, len - 2), false);  // chops " *"
    }
    if (type[len - 1] == '*') return val;
    if (type.compare(0, 6, "struct") == 0) return val;
    if (type == "u8") return val & 0xff;
    if (type == "u16") return val & 0xffff;
    if (type == "u32") return val & 0xffffffff;
    if (type == "u64" || type == "s64") return val;
    if (type == "s8") return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int8_t>(val))) & 0xff;
    if (type == "s16") return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int16_t>(val))) & 0xffff;
    if (type == "s32")
        return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(val))) & 0xffffffff;
    std::string_view t = type;
    if (t.substr(0, 9) == "unsigned ") t.remove_prefix(9);
    // libtraceevent never sets its "sign" flag: char, short and int are masked, nothing more.
    if (t == "char") return val & 0xff;
    if (t == "short") return val & 0xffff;
    if (t == "int") return val & 0xffffffff;
    return val;
}

int64_t eval_flag(const std::string& value) {
    static constexpr struct {
        const char* name;
        int64_t value;
    } kFlags[] = {{"HI_SOFTIRQ", 0},      {"TIMER_SOFTIRQ", 1},     {"NET_TX_SOFTIRQ", 2},
                  {"NET_RX_SOFTIRQ", 3},  {"BLOCK_SOFTIRQ", 4},     {"IRQ_POLL_SOFTIRQ", 5},
                  {"TASKLET_SOFTIRQ", 6}, {"SCHED_SOFTIRQ", 7},     {"HRTIMER_SOFTIRQ", 8},
                  {"RCU_SOFTIRQ", 9},     {"HRTIMER_NORESTART", 0}, {"HRTIMER_RESTART", 1}};
    if (!value.empty() && std::isdigit(static_cast<unsigned char>(value[0])))
        return static_cast<int64_t>(std::strtoull(value.c_str(), nullptr, 0));
    for (const auto& f : kFlags)
        if (value == f.name) return f.value;
    return -1;
}

PrintParser::DepthGuard::DepthGuard(PrintParser& p) : p_(p) {
    if (++p_.depth_ <= kMaxDepth || p_.p_.too_deep) return;
    auto [line, column] = p_.tk_.last_position();
    p_.p_.too_deep = Error(Errc::parse, "print fmt nested deeper than " + std::to_string(kMaxDepth) +
                                            " levels, printed as [FAILED TO PARSE]")
                         .at_line(line, column);
}

void PrintParser::parse() {
    if (!read_print()) p_.failed = true;
    if (p_.too_deep) p_.failed = true;
    for (Node& nd : p_.nodes) {
        if (nd.kind == ArgKind::op) {
            nd.op0 = nd.text.size() > 0 ? nd.text[0] : 0;
            nd.op1 = nd.text.size() > 1 ? nd.text[1] : 0;
            nd.op_index = nd.text == "[";
            nd.op_cond = nd.text == "?";
        } else if (nd.kind == ArgKind::type) {
            // A cast only masks (see eval_type_str), so the mask is the cast of all ones.
            nd.cast_mask = eval_type_str(~0ull, nd.text, false);
            nd.ptr_cast_mask = eval_type_str(~0ull, nd.text, true);
        }
    }
    if (p_.failed) return;
    if (p_.is_ftrace && p_.args.empty()) {
        // old ftrace formats had no arguments: print every field
        for (size_t i = p_.nr_common; i < p_.fields.size(); ++i) {
            int32_t a = new_node();
            n(a).kind = ArgKind::field;
            n(a).text = p_.fields[i].name;
            n(a).field = static_cast<int32_t>(i);
            p_.args.push_back(a);
        }
    }
    if (!p_.is_bprint) {
        bool failed = false;
        p_.segments = cut_segments(p_.format, p_.args, &failed);
        if (failed) p_.failed = true;
    }
    for (Node& nd : p_.nodes)
        if (nd.kind == ArgKind::atom) nd.num = std::strtoull(nd.text.c_str(), nullptr, 0);
}

bool PrintParser::read_print() {
    std::string tok;
    if (tk_.next_item(tok) != T::item || tok != "print") return false;
    if (tk_.next(tok) != T::item || tok != "fmt") return false;
    if (tk_.next(tok) != T::op || tok != ":") return false;
    if (tk_.next(tok) != T::dquote) return false;
    p_.format = tok;
    for (;;) {
        T type = tk_.next_item(tok);
        if (type == T::none) return true;
        if (type == T::dquote) {
            p_.format += tok;
            continue;
        }
        if (type != T::delim || tok != ",") return false;
        break;
    }
    return read_print_args() >= 0;
}

int PrintParser::read_print_args() {
    T type = T::error;
    std::string tok;
    int count = 0;
    do {
        if (type == T::newline) {
            type = tk_.next_item(tok);
            continue;
        }
        int32_t arg = new_node();
        type = process_arg(arg, tok);
        if (type == T::error) return -1;
        p_.args.push_back(arg);
        ++count;
        if (type == T::op) {
            type = process_op(arg, tok);
            if (!consolidate(type, arg)) type = T::error;
            if (type == T::error) {
                p_.args.pop_back();
                return -1;
            }
            continue;
        }
        if (type == T::delim && tok == ",") continue;
        break;
    } while (type != T::none);
    return count;
}

PrintParser::T PrintParser::process_arg(int32_t arg, std::string& tok) {
    T type = tk_.next(tok);
    return process_arg_token(arg, tok, type);
}

PrintParser::T PrintParser::process_arg_token(int32_t arg, std::string& tok, T type) {
    DepthGuard guard(*this);
    if (guard.too_deep()) return T::error;
    switch (type) {
        case T::item: {
            if (tok == "REC") return process_entry(arg, tok);
            std::string atom = tok;
            type = tk_.next_item(tok);
            if (type == T::delim && tok == "(") return process_function(arg, atom, tok);
            while (type == T::item) {  // "unsigned long" and friends
                atom += " " + tok;
                type = tk_.next_item(tok);
            }
            n(arg).kind = ArgKind::atom;
            n(arg).text = std::move(atom);
            return type;
        }
        case T::squote:
            n(arg).kind = ArgKind::atom;
            // 1.7.1 keeps the character itself: 'F' evaluates as a number to 0
            n(arg).text = tok;
            return tk_.next_item(tok);
        case T::dquote:
            n(arg).kind = ArgKind::atom;
            n(arg).text = tok;
            return tk_.next_item(tok);
        case T::delim:
            if (tok == "(") return process_paren(arg, tok);
            [[fallthrough]];
        case T::op:
            // a unary operator
            n(arg).kind = ArgKind::op;
            n(arg).text = tok;
            n(arg).a = -1;
            return process_op(arg, tok);
        default:
            return T::error;
    }
}

// The node at arg moves to a new node and arg becomes the operator `token` with it as its left.
int32_t PrintParser::push_down(int32_t arg, const std::string& token) {
    int32_t left = new_node();
    n(left) = n(arg);
    Node op;
    op.kind = ArgKind::op;
    op.text = token;
    op.a = left;
    n(arg) = std::move(op);
    return left;
}

PrintParser::T PrintParser::process_op(int32_t arg, std::string& tok) {
    DepthGuard guard(*this);
    if (guard.too_deep()) return T::error;
    std::string token = tok;
    int32_t right = -1;
    T type;
    if (n(arg).kind == ArgKind::op && n(arg).a < 0) {
        if (token.size() != 1 || !std::strchr("~!+-", token[0])) return T::error;
        int32_t left = new_node();  // kind null_
        n(arg).a = left;
        right = new_node();
        n(arg).b = right;
        type = process_arg(right, tok);
    } else if (token == "?") {
        push_down(arg, token);
        type = process_cond(arg, tok);
    } else if (token == ">>" || token == "<<" || token == "&" || token == "|" || token == "&&" ||
               token == "||" || token == "-" || token == "+" || token == "*" || token == "^" ||
               token == "/" || token == "%" || token == "<" || token == ">" || token == "<=" ||
               token == ">=" || token == "==" || token == "!=") {
        int32_t left = push_down(arg, token);
        // set_op_prio(): an operator with an empty left side binds tightest
        n(arg).prio = n(left).kind == ArgKind::null_ ? 0 : op_prio(token);
        if (n(arg).prio < 0) {
            p_.failed = true;
            return T::error;
        }
        type = tk_.next_item(tok);
        if (token == "*" && type == T::delim && tok == ")") {
            // "(type *)": a cast, not a multiplication
            if (n(left).kind != ArgKind::atom) return T::error;
            n(left).text += " *";
            Node l = n(left);
            n(arg) = std::move(l);
            return type;
        }
        right = new_node();
        type = process_arg_token(right, tok, type);
        if (type == T::error) return T::error;
        if (n(right).kind == ArgKind::op && op_prio(n(arg).text) < op_prio(n(right).text)) {
            // rotate by priority, as libtraceevent does
            n(arg).b = n(right).a;
            std::swap(n(arg), n(right));
            n(arg).a = right;
        } else {
            n(arg).b = right;
        }
    } else if (token == "[") {
        push_down(arg, token);
        type = process_array(arg, tok);
    } else {
        p_.failed = true;
        return T::error;
    }

    if (type == T::op && tok != ":") {
        int prio = op_prio(tok);
        if (prio < 0) return T::error;
        if (prio > n(arg).prio || right < 0) return process_op(arg, tok);
        return process_op(right, tok);
    }
    return type;
}

PrintParser::T PrintParser::process_cond(int32_t top, std::string& tok) {
    int32_t arg = new_node();
    int32_t left = new_node();
    int32_t right = new_node();
    n(arg).kind = ArgKind::op;
    n(arg).a = left;
    n(arg).b = right;
    std::string t;
    T type = process_arg(left, t);
    for (;;) {
        if (type == T::error) {
            n(top).b = -1;
            return T::error;
        }
        if (type == T::op && t != ":") {
            type = process_op(left, t);
            continue;
        }
        break;
    }
    if (type != T::op || t != ":") {
        n(top).b = -1;
        return T::error;
    }
    n(arg).text = ":";
    type = process_arg(right, t);
    n(top).b = arg;
    tok = t;
    return type;
}

PrintParser::T PrintParser::process_array(int32_t top, std::string& tok) {
    int32_t arg = new_node();
    std::string t;
    T type = process_arg(arg, t);
    if (type != T::op || t != "]") return T::error;
    n(top).b = arg;
    return tk_.next_item(tok);
}

PrintParser::T PrintParser::process_entry(int32_t arg, std::string& tok) {
    std::string t;
    T type = tk_.next_item(t);
    if (type == T::delim && t == ")") {  // "(REC)->field"
        tok = t;
        return T::item;
    }
    if (type != T::op || t != "->") return T::error;
    if (tk_.next(t) != T::item) return T::error;
    n(arg).kind = ArgKind::field;
    n(arg).text = t;
    n(arg).field = p_.find_any_field(t);
    return tk_.next(tok);
}

PrintParser::T PrintParser::process_paren(int32_t arg, std::string& tok) {
    std::string t;
    T type = process_arg(arg, t);
    if (type == T::error) return T::error;
    if (type == T::op) type = process_op(arg, t);
    if (type == T::error) return T::error;
    if (type == T::item && t == ")") return process_entry(arg, tok);
    if (type != T::delim || t != ")") return T::error;
    type = tk_.next_item(t);
    if (type == T::item || type == T::dquote || type == T::squote || (type == T::delim && t == "(")) {
        // "(type) expr": a cast
        if (n(arg).kind != ArgKind::atom) return T::error;
        int32_t item = new_node();
        Node& cast = n(arg);
        cast.kind = ArgKind::type;
        cast.a = item;  // text keeps the type name
        type = process_arg_token(item, t, type);
    }
    tok = t;
    return type;
}

}  // namespace ringscope::format
