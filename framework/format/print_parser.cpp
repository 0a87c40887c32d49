#include "framework/format/print_parser.hpp"

#include "framework/format/printf_format.hpp"

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
        int32_t left = new_node();
        n(left) = n(arg);
        Node op;
        op.kind = ArgKind::op;
        op.text = token;
        op.a = left;
        n(arg) = std::move(op);
        type = process_cond(arg, tok);
    } else if (token == ">>" || token == "<<" || token == "&" || token == "|" || token == "&&" ||
               token == "||" || token == "-" || token == "+" || token == "*" || token == "^" ||
               token == "/" || token == "%" || token == "<" || token == ">" || token == "<=" ||
               token == ">=" || token == "==" || token == "!=") {
        int32_t left = new_node();
        n(left) = n(arg);
        Node op;
        op.kind = ArgKind::op;
        op.text = token;
        op.a = left;
        n(arg) = std::move(op);
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
        int32_t left = new_node();
        n(left) = n(arg);
        Node op;
        op.kind = ArgKind::op;
        op.text = token;
        op.a = left;
        n(arg) = std::move(op);
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

PrintParser::T PrintParser::process_function(int32_t arg, const std::string& name, std::string& tok) {
    if (name == "__print_flags") return process_flags(arg, tok, true);
    if (name == "__print_symbolic") return process_flags(arg, tok, false);
    if (name == "__print_hex") return process_hex(arg, tok, ArgKind::hex);
    if (name == "__print_hex_str") return process_hex(arg, tok, ArgKind::hex_str);
    if (name == "__print_array") return process_int_array(arg, tok);
    if (name == "__get_str" || name == "__get_rel_str") return process_named(arg, tok, ArgKind::string);
    if (name == "__get_bitmask" || name == "__get_rel_bitmask")
        return process_named(arg, tok, ArgKind::bitmask);
    if (name == "__get_cpumask" || name == "__get_rel_cpumask")
        return process_named(arg, tok, ArgKind::cpumask);
    if (name == "__get_dynamic_array" || name == "__get_rel_dynamic_array" || name == "__get_sockaddr" ||
        name == "__get_sockaddr_rel")
        return process_dynamic_array(arg, tok);
    if (name == "__get_dynamic_array_len" || name == "__get_rel_dynamic_array_len")
        return process_dynamic_array_len(arg, tok);
    if (name == "__builtin_expect") return process_builtin_expect(arg, tok);
    if (name == "sizeof") return process_sizeof(arg, tok);
    // libtraceevent only knows functions that plugins register; without plugins this fails.
    return T::error;
}

PrintParser::T PrintParser::process_flags(int32_t arg, std::string& tok, bool flags) {
    Node fresh;
    fresh.kind = flags ? ArgKind::flags : ArgKind::symbol;
    n(arg) = std::move(fresh);
    int32_t field = new_node();
    std::string t;
    T type = process_arg(field, t);
    while (type == T::op) type = process_op(field, t);
    if (type != T::delim || t != ",") return T::error;
    n(arg).a = field;
    if (flags) {
        type = tk_.next_item(t);
        if (type == T::item || type == T::dquote || type == T::squote) {
            n(arg).text = t;
            n(arg).has_delim = true;
            type = tk_.next_item(t);
        }
        if (type != T::delim || t != ",") return T::error;
    }
    std::vector<FlagSym> syms;
    type = process_fields(syms, t);
    n(arg).syms = std::move(syms);
    if (type != T::delim || t != ")") return T::error;
    return tk_.next_item(tok);
}

PrintParser::T PrintParser::process_fields(std::vector<FlagSym>& list, std::string& tok) {
    T type;
    std::string t;
    do {
        type = tk_.next_item(t);
        if (type != T::op || t != "{") break;
        int32_t arg = new_node();
        type = process_arg(arg, t);
        if (type == T::op) type = process_op(arg, t);
        if (type == T::error) return T::error;
        if (type != T::delim || t != ",") return T::error;
        FlagSym fs;
        if (!arg_eval(arg, fs.value)) return T::error;
        arg = new_node();
        type = process_arg(arg, t);
        if (type != T::op || t != "}") return T::error;
        if (!arg_eval(arg, fs.str)) return T::error;
        fs.fval = eval_flag(fs.value);
        list.push_back(std::move(fs));
        type = tk_.next_item(t);
    } while (type == T::delim && t == ",");
    tok = t;
    return type;
}

bool PrintParser::alloc_and_process_delim(const char* next, int32_t& out) {
    int32_t field = new_node();
    std::string t;
    T type = process_arg(field, t);
    if (type == T::op) {
        type = process_op(field, t);
        if (!consolidate(type, field)) type = T::error;
        if (type == T::error) return false;
    }
    if (type != T::delim || t != next) return false;
    out = field;
    return true;
}

PrintParser::T PrintParser::process_hex(int32_t arg, std::string& tok, ArgKind kind) {
    n(arg) = Node();
    n(arg).kind = kind;
    int32_t f = -1, s = -1;
    if (!alloc_and_process_delim(",", f)) return T::error;
    n(arg).a = f;
    if (!alloc_and_process_delim(")", s)) return T::error;
    n(arg).b = s;
    return tk_.next_item(tok);
}

PrintParser::T PrintParser::process_int_array(int32_t arg, std::string& tok) {
    n(arg) = Node();
    n(arg).kind = ArgKind::int_array;
    int32_t f = -1, c = -1, e = -1;
    if (!alloc_and_process_delim(",", f)) return T::error;
    n(arg).a = f;
    if (!alloc_and_process_delim(",", c)) return T::error;
    n(arg).b = c;
    if (!alloc_and_process_delim(")", e)) return T::error;
    n(arg).c = e;
    return tk_.next_item(tok);
}

PrintParser::T PrintParser::process_dynamic_array(int32_t arg, std::string& tok) {
    n(arg) = Node();
    n(arg).kind = ArgKind::dynamic_array;
    std::string t;
    if (tk_.next(t) != T::item) return T::error;
    int f = p_.find_field(t);
    if (f < 0) return T::error;
    n(arg).field = f;
    n(arg).text = t;
    if (tk_.next(t) != T::delim || t != ")") return T::error;
    T type = tk_.next_item(t);
    if (type != T::op || t != "[") {
        tok = t;
        return type;
    }
    // libtraceevent inverts its test here: "__get_dynamic_array(x)[i]" never parses.
    int32_t index = new_node();
    type = process_arg(index, t);
    if (type == T::error) return T::error;
    if (type == T::op && t == "]") return T::error;
    return tk_.next_item(tok);
}

PrintParser::T PrintParser::process_dynamic_array_len(int32_t arg, std::string& tok) {
    std::string t;
    if (tk_.next(t) != T::item) return T::error;
    n(arg).kind = ArgKind::dynamic_array_len;
    int f = p_.find_field(t);
    if (f < 0) return T::error;
    n(arg).field = f;
    n(arg).text = t;
    if (tk_.next(t) != T::delim || t != ")") return T::error;
    return tk_.next(tok);
}

PrintParser::T PrintParser::process_named(int32_t arg, std::string& tok, ArgKind kind) {
    std::string t;
    if (tk_.next(t) != T::item) return T::error;
    n(arg).kind = kind;
    n(arg).text = t;
    n(arg).field = p_.find_any_field(t);
    if (tk_.next(t) != T::delim || t != ")") return T::error;
    return tk_.next(tok);
}

PrintParser::T PrintParser::process_builtin_expect(int32_t arg, std::string& tok) {
    std::string t;
    T type = process_arg(arg, t);
    if (type != T::delim || t.empty() || t[0] != ',') return T::error;
    if (tk_.next(t) != T::item) return T::error;
    if (tk_.next(t) != T::delim || t != ")") return T::error;
    return tk_.next_item(tok);
}

PrintParser::T PrintParser::process_sizeof(int32_t arg, std::string& tok) {
    std::string t;
    T type = tk_.next_item(t);
    n(arg).kind = ArgKind::atom;
    bool has_paren = false;
    if (t == "unsigned") {
        type = tk_.next_item(t);
        if (type == T::error) return T::error;
        if (type != T::item) has_paren = true;
    }
    if (has_paren || t == "int") {
        n(arg).text = "4";
    } else if (t == "long") {
        type = tk_.next_item(t);
        if (t == "long") {
            n(arg).text = "8";
        } else {
            if (p_.long_size != 4 && p_.long_size != 8) return T::error;
            n(arg).text = std::to_string(p_.long_size);
            has_paren = true;
        }
    } else if (t == "REC") {
        type = tk_.next_item(t);
        if (type != T::op || t != "->") return T::error;
        if (tk_.next(t) != T::item) return T::error;
        int f = p_.find_any_field(t);
        if (f < 0 || (p_.fields[f].flags & kTepArray)) return T::error;
        n(arg).text = std::to_string(p_.fields[f].size);
    } else {
        return T::error;
    }
    if (!has_paren) type = tk_.next_item(t);
    if (type != T::delim || t != ")") return T::error;
    return tk_.next_item(tok);
}

bool PrintParser::consolidate(T type, int32_t arg) {
    if (type == T::error) return false;
    if (n(arg).kind != ArgKind::op) return true;
    if (n(arg).a >= 0 && !consolidate(type, n(arg).a)) return false;
    if (n(arg).b >= 0 && !consolidate(type, n(arg).b)) return false;
    if (n(arg).a < 0 || n(arg).b < 0) return true;
    const Node& l = n(n(arg).a);
    const Node& r = n(n(arg).b);
    if (l.kind != ArgKind::atom || r.kind != ArgKind::atom) return true;
    uint64_t left = std::strtoull(l.text.c_str(), nullptr, 0);
    uint64_t right = std::strtoull(r.text.c_str(), nullptr, 0);
    const std::string& op = n(arg).text;
    uint64_t val;
    switch (op[0]) {
        case '>':
            val = op[1] == '>' ? left >> (right & 63) : op[1] == '=' ? left >= right : left > right;
            break;
        case '<':
            val = op[1] == '<' ? left << (right & 63) : op[1] == '=' ? left <= right : left < right;
            break;
        case '&':
            val = op[1] == '&' ? (left && right) : (left & right);
            break;
        case '|':
            val = op[1] == '|' ? (left || right) : (left | right);
            break;
        case '-':
            val = left - right;
            break;
        case '+':
            val = left + right;
            break;
        case '*':
            val = left * right;
            break;
        case '^':
            val = left ^ right;
            break;
        case '/':
            val = right ? left / right : 0;
            break;
        case '%':
            val = right ? left % right : 0;
            break;
        case '=':
            val = left == right;
            break;
        case '!':
            val = left != right;
            break;
        default:
            return true;
    }
    Node atom;
    atom.kind = ArgKind::atom;
    atom.text = std::to_string(static_cast<long long>(val));
    n(arg) = std::move(atom);
    return true;
}

bool PrintParser::arg_num_eval(int32_t arg, long long& val) {
    const Node& nd = n(arg);
    long long left = 0, right = 0;
    switch (nd.kind) {
        case ArgKind::atom:
            val = std::strtoll(nd.text.c_str(), nullptr, 0);
            return true;
        case ArgKind::type:
            if (!arg_num_eval(nd.a, val)) return false;
            val = static_cast<long long>(eval_type_str(static_cast<uint64_t>(val), nd.text, false));
            return true;
        case ArgKind::op: {
            const std::string op = nd.text;
            auto both = [&] { return arg_num_eval(n(arg).a, left) && arg_num_eval(n(arg).b, right); };
            switch (op[0]) {
                case '|':
                    if (!both()) return false;
                    val = op.size() > 1 ? (left || right) : (left | right);
                    return true;
                case '&':
                    if (!both()) return false;
                    val = op.size() > 1 ? (left && right) : (left & right);
                    return true;
                case '<':
                    if (!both()) return false;
                    if (op.size() == 1)
                        val = left < right;
                    else if (op[1] == '<')
                        val = static_cast<long long>(static_cast<uint64_t>(left) << (right & 63));
                    else if (op[1] == '=')
                        val = left <= right;
                    else
                        return false;
                    return true;
                case '>':
                    if (!both()) return false;
                    if (op.size() == 1)
                        val = left > right;
                    else if (op[1] == '>')
                        val = left >> (right & 63);
                    else if (op[1] == '=')
                        val = left >= right;
                    else
                        return false;
                    return true;
                case '=':
                    if (!both() || op.size() < 2 || op[1] != '=') return false;
                    val = left == right;
                    return true;
                case '!':
                    if (!both() || op.size() < 2 || op[1] != '=') return false;
                    val = left != right;
                    return true;
                case '-':
                case '+':
                    if (n(arg).a >= 0 && n(n(arg).a).kind == ArgKind::null_)
                        left = 0;
                    else if (n(arg).a < 0 || !arg_num_eval(n(arg).a, left))
                        return false;
                    if (!arg_num_eval(n(arg).b, right)) return false;
                    val = op[0] == '-' ? static_cast<long long>(static_cast<uint64_t>(left) -
                                                                static_cast<uint64_t>(right))
                                       : static_cast<long long>(static_cast<uint64_t>(left) +
                                                                static_cast<uint64_t>(right));
                    return true;
                case '~':
                    if (!arg_num_eval(n(arg).b, right)) return false;
                    val = ~right;
                    return true;
                default:
                    return false;
            }
        }
        default:
            return false;
    }
}

bool PrintParser::arg_eval(int32_t arg, std::string& out) {
    if (arg < 0) return false;
    switch (n(arg).kind) {
        case ArgKind::atom:
            out = n(arg).text;
            return true;
        case ArgKind::type:
            return arg_eval(n(arg).a, out);
        case ArgKind::op: {
            long long v;
            if (!arg_num_eval(arg, v)) return false;
            out = std::to_string(v);
            return true;
        }
        default:
            return false;
    }
}

std::vector<Segment> PrintParser::cut_segments(const std::string& format, const std::vector<int32_t>& args,
                                               bool* failed) {
    std::vector<Segment> out;
    size_t next_arg = 0;
    const char* f = format.c_str();
    long len = static_cast<long>(format.size());
    auto take = [&]() -> int32_t { return next_arg < args.size() ? args[next_arg++] : -1; };
    auto have = [&]() { return next_arg < args.size(); };
    while (*f) {
        long ret = 0;
        if (f[0] == '%' && f[1] != '%') {
            // parse_arg_format()
            const char* start = f;
            const char* p = f + 1;
            ret = 1;
            int ls = 0;
            int32_t len_arg = -1;
            for (; *p; ++p, ++ret) {
                char ch = *p;
                if (ch == '#' || ch == '.' || (ch >= '0' && ch <= '9') || ch == '-' || ch == '+') continue;
                if (ch == 'h') {
                    --ls;
                    continue;
                }
                if (ch == 'l') {
                    ++ls;
                    continue;
                }
                if (ch == 'L') {
                    ls = 2;
                    continue;
                }
                if (ch == 'z' || ch == 'Z') {
                    ls = 1;
                    continue;
                }
                if (ch == '*') {
                    if (!have() || len_arg >= 0) {
                        *failed = true;
                        break;
                    }
                    len_arg = take();
                    continue;
                }
                Segment s;
                if (ch == 'p') {
                    if (!have()) {
                        *failed = true;
                        break;
                    }
                    // parse_arg_format_pointer(): how many letters after %p belong to it
                    const char* q = p + 1;
                    int res = 0;
                    switch (*q) {
                        case 'F':
                        case 'S':
                        case 'f':
                        case 's':
                            res = 1;
                            break;
                        case 'M':
                        case 'm':
                            res = (q[1] == 'R' || q[1] == 'F') ? 2 : 1;
                            break;
                        case 'I':
                        case 'i': {
                            int index = 2;
                            switch (q[1]) {
                                case 'S':
                                    while (q[index] == 'p' || q[index] == 'f' || q[index] == 's') {
                                        ++res;
                                        ++index;
                                    }
                                    [[fallthrough]];
                                case '4':
                                    if (q[index] == 'h' || q[index] == 'n' || q[index] == 'l' ||
                                        q[index] == 'b') {
                                        ++res;
                                        ++index;
                                    }
                                    if (q[1] == '4') {
                                        ++res;
                                        break;
                                    }
                                    [[fallthrough]];
                                case '6':
                                    if (q[index] == 'c') ++res;
                                    ++res;
                                    break;
                                default:
                                    break;
                            }
                            ++res;
                            break;
                        }
                        case 'U':
                            res = (q[1] == 'L' || q[1] == 'l' || q[1] == 'B' || q[1] == 'b') ? 2 : 1;
                            break;
                        case 'h':
                            res = (q[1] == 'C' || q[1] == 'D' || q[1] == 'N') ? 2 : 1;
                            break;
                        default:
                            break;
                    }
                    // never step over the end of the string
                    for (int k = 0; k < res && p[1]; ++k) {
                        ++p;
                        ++ret;
                    }
                    long flen = p + 1 - start;
                    if (flen > 31) {
                        *failed = true;
                        flen = 31;
                    }
                    s.kind = SegKind::pointer;
                    s.fmt.assign(start, static_cast<size_t>(flen));
                    s.arg = take();
                    s.len_arg = len_arg;
                    s.ls = ls;
                    out.push_back(std::move(s));
                    ++ret;
                    break;
                }
                // libtraceevent 1.7.1 has no %c: it prints ">c<" and takes no argument
                if (std::strchr("duixXo", ch)) {
                    if (!have()) {
                        *failed = true;
                        break;
                    }
                    long flen = p + 1 - start;
                    if (flen > 30) {
                        *failed = true;
                        flen = 31;
                    }
                    if (ls < -2 || ls > 2) *failed = true;
                    s.kind = SegKind::digit;
                    s.fmt.assign(start, static_cast<size_t>(flen));
                    s.arg = take();
                    s.len_arg = len_arg;
                    s.ls = ls;
                    out.push_back(std::move(s));
                    ++ret;
                    break;
                }
                if (ch == 's') {
                    if (!have()) {
                        *failed = true;
                        break;
                    }
                    long flen = p + 1 - start;
                    if (flen > 31) {
                        *failed = true;
                        flen = 31;
                    }
                    s.kind = SegKind::string;
                    s.fmt.assign(start, static_cast<size_t>(flen));
                    s.arg = take();
                    s.len_arg = len_arg;
                    out.push_back(std::move(s));
                    ++ret;
                    break;
                }
                // an unknown conversion prints itself between > and <
                s.kind = SegKind::text;
                s.fmt = std::string(">") + ch + "<";
                out.push_back(std::move(s));
                ++ret;
                break;
            }
        } else {
            // parse_arg_string(): literal text up to the next conversion
            Segment s;
            s.kind = SegKind::text;
            const char* p = f;
            for (; *p; ++p, ++ret) {
                if (*p == '\\') {
                    ++p;
                    ++ret;
                    switch (*p) {
                        case 'n':
                            s.fmt.push_back('\n');
                            break;
                        case 't':
                            s.fmt.push_back('\t');
                            break;
                        case 'r':
                            s.fmt.push_back('\r');
                            break;
                        case '\\':
                            s.fmt.push_back('\\');
                            break;
                        case '\0':
                            break;
                        default:
                            s.fmt.push_back(*p);
                            break;
                    }
                    if (!*p) break;
                } else if (*p == '%') {
                    if (p[1] == '%') {
                        s.fmt.push_back('%');
                        ++p;
                        ++ret;
                    } else {
                        break;
                    }
                } else {
                    s.fmt.push_back(*p);
                }
            }
            s.ends_0x = s.fmt.size() > 1 && s.fmt.compare(s.fmt.size() - 2, 2, "0x") == 0;
            out.push_back(std::move(s));
        }
        len -= ret;
        if (len > 0)
            f += ret;
        else
            break;
    }
    for (Segment& s : out) {
        if (s.kind == SegKind::text) continue;
        s.fmt = clamp_conversion(s.fmt);
        if (s.kind == SegKind::digit || s.kind == SegKind::string) s.spec = parse_spec(s.fmt);
    }
    return out;
}

void PrintParser::collect_tables(int32_t arg, std::vector<ValueTable>& out) const {
    if (arg < 0) return;
    const Node& nd = p_.nodes[static_cast<size_t>(arg)];
    if (nd.kind == ArgKind::flags || nd.kind == ArgKind::symbol) {
        ValueTable t;
        int32_t f = nd.a;
        while (f >= 0 && p_.nodes[static_cast<size_t>(f)].kind == ArgKind::type)
            f = p_.nodes[static_cast<size_t>(f)].a;
        // plugins look tables up by field name: an expression of one field counts as that field
        std::string only;
        int nfields = 0;
        count_fields(nd.a, only, nfields);
        if (f >= 0 && p_.nodes[static_cast<size_t>(f)].kind == ArgKind::field)
            t.field = p_.nodes[static_cast<size_t>(f)].text;
        else if (nfields == 1)
            t.field = only;
        else
            t.field = expr_text(nd.a);
        t.is_flags = nd.kind == ArgKind::flags;
        if (nd.has_delim) t.delimiter = nd.text;
        for (const auto& s : nd.syms)
            if (s.fval >= 0 || s.value == "-1") t.entries.emplace_back(static_cast<uint64_t>(s.fval), s.str);
        out.push_back(std::move(t));
    }
    collect_tables(nd.a, out);
    collect_tables(nd.b, out);
    collect_tables(nd.c, out);
}

void PrintParser::count_fields(int32_t arg, std::string& name, int& count) const {
    if (arg < 0) return;
    const Node& nd = p_.nodes[static_cast<size_t>(arg)];
    if (nd.kind == ArgKind::field) {
        if (count == 0 || name != nd.text) ++count;
        name = nd.text;
        return;
    }
    count_fields(nd.a, name, count);
    count_fields(nd.b, name, count);
    count_fields(nd.c, name, count);
}

void PrintParser::fill_tables(std::vector<ValueTable>& out) const {
    for (int32_t a : p_.args) collect_tables(a, out);
}

std::string PrintParser::expr_text(int32_t arg) const {
    if (arg < 0) return {};
    const Node& nd = p_.nodes[static_cast<size_t>(arg)];
    switch (nd.kind) {
        case ArgKind::atom:
            return nd.text;
        case ArgKind::field:
            return "REC->" + nd.text;
        case ArgKind::type:
            return "(" + nd.text + ")" + expr_text(nd.a);
        case ArgKind::op:
            if (nd.text == "[") return expr_text(nd.a) + "[" + expr_text(nd.b) + "]";
            return "(" + expr_text(nd.a) + " " + nd.text + " " + expr_text(nd.b) + ")";
        default:
            return {};
    }
}

}  // namespace ringscope::format
