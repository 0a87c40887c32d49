// The print fmt's function calls as event-parse.c parses them without plugins: __print_flags,
// __print_symbolic (and their { value, "name" } lists), __print_hex[_str], __print_array,
// __get_str/__get_bitmask/__get_cpumask, __get_dynamic_array[_len], __builtin_expect, sizeof.
#include "framework/format/print_parser.hpp"

namespace ringscope::format {

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
    }
    if (type != T::delim || t != next) {
        sets_einval_ = true;  // both of libtraceevent's failures here set errno = EINVAL
        return false;
    }
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

}  // namespace ringscope::format
