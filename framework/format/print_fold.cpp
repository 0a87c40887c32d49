// Constant folding of print fmt arguments, as event-parse.c does it: consolidate() folds an
// operator of two numbers while parsing; arg_num_eval()/arg_eval() give the value or text of a
// __print_flags/__print_symbolic entry.
#include "framework/format/print_parser.hpp"

#include <cstdlib>

namespace ringscope::format {

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

}  // namespace ringscope::format
