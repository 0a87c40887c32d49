#include "print_fmt_renderer.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace ringscope::printfmt {

struct PrintFmtRenderer::Node {
    enum Kind {
        kConst,
        kField,
        kCast,
        kUnary,
        kBinary,
        kCall,
        kString,
        kDynArray,
        kSymbolic,
        kHex,
        kText
    } kind = kConst;
    uint64_t value = 0;                 // kConst
    FieldHandle field;                  // kField, kString, kDynArray
    unsigned bits = 64;                 // kCast: width
    bool is_signed = false;             // kCast
    char op[3] = {};                    // kUnary / kBinary
    const Node* a = nullptr;            // operand / left / call argument / symbolic value / hex array
    const Node* b = nullptr;            // right / pointer argument / hex length
    const PrintFunction* fn = nullptr;  // kCall
    std::vector<std::pair<uint64_t, std::string>> entries;  // kSymbolic: its table
    std::string text;                                       // kText: a string literal
};

using Node = PrintFmtRenderer::Node;

namespace {

// A number: no string or record pointer anywhere in it (those only go to %s or to a helper).
bool numeric(const Node* n) {
    switch (n->kind) {
        case Node::kConst:
        case Node::kField:
        case Node::kCall:
            return true;
        case Node::kCast:
        case Node::kUnary:
            return numeric(n->a);
        case Node::kBinary:
            return numeric(n->a) && numeric(n->b);
        case Node::kString:
        case Node::kDynArray:
        case Node::kSymbolic:
        case Node::kHex:
        case Node::kText:
            return false;
    }
    return false;
}

// A number made of literals only (a table's value).
bool constant(const Node* n) {
    switch (n->kind) {
        case Node::kConst:
            return true;
        case Node::kCast:
        case Node::kUnary:
            return constant(n->a);
        case Node::kBinary:
            return constant(n->a) && constant(n->b);
        default:
            return false;
    }
}

uint64_t eval(const Node& n, const Event* ev);

// Where a pointer to a dynamic array points in libtraceevent: from the array to the record's end.
std::span<const uint8_t> record_tail(const Event& ev, const FieldHandle& h) {
    const auto payload = ev.payload();
    if (!h || h.size != 4 || h.offset > payload.size() || payload.size() - h.offset < 4) return {};
    uint32_t off = static_cast<uint32_t>(ev.u64(FieldHandle{h.offset, 4, 0, true})) & 0xffff;
    if (h.flags & kFieldRelLoc) off += h.offset + 4;
    if (off > payload.size()) return {};
    return payload.subspan(off);
}

}  // namespace

class Compiler {
  public:
    Compiler(const EventType& t, const std::vector<PrintFunction>& fns, PrintFmtRenderer& r)
        : type_(t), fns_(fns), r_(r), s_(t.print_fmt) {}

    bool run() {
        std::string fmt;
        skip_ws();
        if (!at('"')) return false;
        while (at('"'))
            if (!string_literal(fmt)) return false;
        std::vector<const Node*> args;
        while (true) {
            skip_ws();
            if (pos_ >= s_.size()) break;
            if (!at(',')) return false;
            ++pos_;
            const Node* n = expr(0);
            if (!n) return false;
            args.push_back(n);
        }
        return segments(fmt, args);
    }

  private:
    // --- print fmt text ---------------------------------------------------------------------
    bool at(char c) const { return pos_ < s_.size() && s_[pos_] == c; }
    void skip_ws() {
        while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    }
    bool string_literal(std::string& out) {
        ++pos_;  // '"'
        while (pos_ < s_.size() && s_[pos_] != '"') {
            char c = s_[pos_++];
            if (c == '\\' && pos_ < s_.size()) {
                const char e = s_[pos_++];
                c = e == 'n' ? '\n' : e == 't' ? '\t' : e;
            }
            out.push_back(c);
        }
        if (!at('"')) return false;
        ++pos_;
        skip_ws();
        return true;
    }

    // --- expressions (C precedence) ---------------------------------------------------------
    Node* make(Node::Kind k) {
        r_.nodes_.push_back(std::make_unique<Node>());
        r_.nodes_.back()->kind = k;
        return r_.nodes_.back().get();
    }
    std::string_view ident() {
        skip_ws();
        const size_t b = pos_;
        while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_'))
            ++pos_;
        return s_.substr(b, pos_ - b);
    }
    static int precedence(std::string_view op) {
        if (op == "*" || op == "/" || op == "%") return 10;
        if (op == "+" || op == "-") return 9;
        if (op == "<<" || op == ">>") return 8;
        if (op == "&") return 5;
        if (op == "^") return 4;
        if (op == "|") return 3;
        return -1;
    }
    std::string_view peek_op() {
        skip_ws();
        if (pos_ >= s_.size()) return {};
        const std::string_view two = s_.substr(pos_, 2);
        if (two == "<<" || two == ">>") return two;
        if (two == "&&" || two == "||") return {};
        return s_.substr(pos_, 1);
    }
    const Node* expr(int min_prec) {
        const Node* left = unary();
        while (left) {
            const std::string_view op = peek_op();
            const int p = precedence(op);
            if (p < 0 || p < min_prec) break;
            pos_ += op.size();
            const Node* right = expr(p + 1);
            if (!right || !numeric(left) || !numeric(right)) return nullptr;
            Node* n = make(Node::kBinary);
            op.copy(n->op, op.size());
            n->a = left;
            n->b = right;
            left = n;
        }
        return left;
    }
    const Node* unary() {
        skip_ws();
        if (at('-') || at('~') || at('!')) {
            Node* n = make(Node::kUnary);
            n->op[0] = s_[pos_++];
            n->a = unary();
            return n->a && numeric(n->a) ? n : nullptr;
        }
        if (at('(')) {
            const size_t save = pos_;
            ++pos_;
            if (Node* cast = cast_type()) {
                cast->a = unary();
                return cast->a ? cast : nullptr;
            }
            pos_ = save + 1;
            const Node* inner = expr(0);
            skip_ws();
            if (!inner || !at(')')) return nullptr;
            ++pos_;
            return inner;
        }
        if (at('"')) {
            Node* n = make(Node::kText);
            return string_literal(n->text) ? n : nullptr;
        }
        if (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
            char* end = nullptr;
            const std::string num(s_.substr(pos_, 24));
            Node* n = make(Node::kConst);
            n->value = std::strtoull(num.c_str(), &end, 0);
            pos_ += static_cast<size_t>(end - num.c_str());
            while (pos_ < s_.size() &&
                   (s_[pos_] == 'u' || s_[pos_] == 'U' || s_[pos_] == 'l' || s_[pos_] == 'L'))
                ++pos_;
            return n;
        }
        const std::string_view id = ident();
        if (id.empty()) return nullptr;
        skip_ws();
        if (id == "__print_symbolic") return symbolic();
        if (id == "__print_hex") return hex();
        if (id == "__get_str" || id == "__get_dynamic_array") {
            if (!at('(')) return nullptr;
            ++pos_;
            const FieldInfo* f = type_.find_field(ident());
            skip_ws();
            if (!f || !f->is_dynamic() || !at(')')) return nullptr;
            ++pos_;
            Node* n = make(id == "__get_str" ? Node::kString : Node::kDynArray);
            n->field = FieldHandle{f->offset, f->size, f->flags, true};
            return n;
        }
        if (id == "REC") return field();
        for (const auto& fn : fns_)
            if (fn.name == id) return call(fn);
        return nullptr;
    }
    // After "REC": ->field or ->array[constant].
    const Node* field() {
        if (s_.substr(pos_, 2) != "->") return nullptr;
        pos_ += 2;
        const FieldInfo* f = type_.find_field(ident());
        if (!f || f->is_dynamic()) return nullptr;
        uint32_t offset = f->offset, size = f->size;
        skip_ws();
        if (at('[')) {
            // An element of a fixed array, at a constant index inside the array.
            ++pos_;
            const Node* index = expr(0);
            skip_ws();
            if (!index || index->kind != Node::kConst || !at(']') || !f->array_len ||
                index->value >= f->array_len)
                return nullptr;
            ++pos_;
            size = f->elem_size;
            offset += static_cast<uint32_t>(index->value) * size;
        } else if (f->array_len) {
            // A whole array: only a char array, as a string.
            if (f->type.find("char") == std::string::npos) return nullptr;
            Node* n = make(Node::kString);
            n->field = FieldHandle{f->offset, f->size, f->flags, true};
            return n;
        }
        if (!(size == 1 || size == 2 || size == 4 || size == 8)) return nullptr;
        Node* n = make(Node::kField);
        n->field = FieldHandle{offset, size, f->flags, true};
        return n;
    }
    // After the helper's name.
    const Node* call(const PrintFunction& fn) {
        if (!at('(')) return nullptr;
        ++pos_;
        Node* n = make(Node::kCall);
        n->fn = &fn;
        if (fn.text_at) {
            // (p, __get_dynamic_array(x), LEN): `p` is the kernel's trace_seq, meaningless here.
            if (ident() != "p") return nullptr;
            skip_ws();
            if (!at(',')) return nullptr;
            ++pos_;
            n->b = unary();
            skip_ws();
            if (!n->b || n->b->kind != Node::kDynArray || !at(',')) return nullptr;
            ++pos_;
            n->a = expr(0);
            skip_ws();
            if (!n->a || !numeric(n->a) || !at(')')) return nullptr;
            ++pos_;
            return n;
        }
        n->a = expr(0);
        skip_ws();
        if (!n->a || !at(')')) return nullptr;
        ++pos_;
        // A pointer helper needs record bytes (casts to pointer types are no-ops), others numbers.
        const Node* arg = n->a;
        while (arg->kind == Node::kCast && arg->bits == 64 && !arg->is_signed) arg = arg->a;
        if ((fn.value_at != nullptr) != (arg->kind == Node::kDynArray)) return nullptr;
        if (!fn.value_at && !numeric(arg)) return nullptr;
        n->b = arg;
        return n;
    }
    // After "__print_symbolic": the value (any number), then its table { VALUE, "NAME" }, ...,
    // read here rather than from EventType::tables: the framework's parser stops at the helper
    // call it does not know, so tables after one are missing there.
    const Node* symbolic() {
        if (!at('(')) return nullptr;
        ++pos_;
        Node* n = make(Node::kSymbolic);
        n->a = expr(0);
        if (!n->a || !numeric(n->a)) return nullptr;
        while (true) {
            skip_ws();
            if (at(')')) break;
            if (!at(',')) return nullptr;
            ++pos_;
            skip_ws();
            if (!at('{')) return nullptr;
            ++pos_;
            int64_t value = -1;
            skip_ws();
            if (pos_ < s_.size() && (std::isalpha(static_cast<unsigned char>(s_[pos_])) || at('_'))) {
                value = flag_name_value(ident());
            } else {
                const Node* v = expr(0);
                if (!v || !constant(v)) return nullptr;
                value = static_cast<int64_t>(eval(*v, nullptr));
            }
            skip_ws();
            if (!at(',')) return nullptr;
            ++pos_;
            skip_ws();
            std::string name;
            if (!at('"') || !string_literal(name) || !at('}')) return nullptr;
            ++pos_;
            if (value >= 0) n->entries.emplace_back(static_cast<uint64_t>(value), std::move(name));
        }
        ++pos_;
        return n;
    }
    // libtraceevent's eval_flag(): the names it knows in a table; any other name matches nothing.
    static int64_t flag_name_value(std::string_view name) {
        static constexpr std::pair<std::string_view, int64_t> kNames[] = {
            {"HI_SOFTIRQ", 0},      {"TIMER_SOFTIRQ", 1},     {"NET_TX_SOFTIRQ", 2},
            {"NET_RX_SOFTIRQ", 3},  {"BLOCK_SOFTIRQ", 4},     {"IRQ_POLL_SOFTIRQ", 5},
            {"TASKLET_SOFTIRQ", 6}, {"SCHED_SOFTIRQ", 7},     {"HRTIMER_SOFTIRQ", 8},
            {"RCU_SOFTIRQ", 9},     {"HRTIMER_NORESTART", 0}, {"HRTIMER_RESTART", 1}};
        for (const auto& [n, v] : kNames)
            if (n == name) return v;
        return -1;
    }
    // After "__print_hex": (__get_dynamic_array(x), LEN).
    const Node* hex() {
        if (!at('(')) return nullptr;
        ++pos_;
        Node* n = make(Node::kHex);
        n->a = unary();
        skip_ws();
        if (!n->a || n->a->kind != Node::kDynArray || !at(',')) return nullptr;
        ++pos_;
        n->b = expr(0);
        skip_ws();
        if (!n->b || !numeric(n->b) || !at(')')) return nullptr;
        ++pos_;
        return n;
    }
    // After '(': a C type name and ')' gives a cast node (operand not yet set), else null.
    Node* cast_type() {
        std::string words;
        bool pointer = false;
        while (true) {
            skip_ws();
            if (at('*')) {
                pointer = true;
                ++pos_;
                continue;
            }
            const std::string_view w = ident();
            if (w.empty()) break;
            if (w == "REC" || std::isdigit(static_cast<unsigned char>(w[0]))) return nullptr;
            if (!words.empty()) words.push_back(' ');
            words.append(w);
        }
        skip_ws();
        if (words.empty() || !at(')')) return nullptr;
        ++pos_;
        Node* n = make(Node::kCast);
        n->bits = 64;  // pointers and unknown typedefs leave the value as it is
        n->is_signed = false;
        if (pointer) return n;
        const bool is_unsigned = words.rfind("unsigned", 0) == 0 || (words[0] == 'u' && words.size() <= 3);
        if (words.find("char") != std::string::npos || words == "u8" || words == "s8")
            n->bits = 8;
        else if (words.find("short") != std::string::npos || words == "u16" || words == "s16")
            n->bits = 16;
        else if (words.find("long") != std::string::npos || words == "u64" || words == "s64")
            n->bits = 64;
        else if (words.find("int") != std::string::npos || words == "unsigned" || words == "u32" ||
                 words == "s32")
            n->bits = 32;
        else
            return n;
        n->is_signed = !is_unsigned;
        return n;
    }

    // --- the printf text ---------------------------------------------------------------------
    bool segments(const std::string& fmt, const std::vector<const Node*>& args) {
        PrintFmtRenderer::Segment seg;
        size_t next_arg = 0;
        for (size_t i = 0; i < fmt.size(); ++i) {
            if (fmt[i] != '%') {
                seg.literal.push_back(fmt[i]);
                continue;
            }
            if (i + 1 < fmt.size() && fmt[i + 1] == '%') {
                seg.literal.push_back('%');
                ++i;
                continue;
            }
            std::string spec = "%";
            size_t j = i + 1;
            while (j < fmt.size() && std::string_view("-+ #0").find(fmt[j]) != std::string_view::npos)
                spec.push_back(fmt[j++]);
            while (j < fmt.size() && (std::isdigit(static_cast<unsigned char>(fmt[j])) || fmt[j] == '.'))
                spec.push_back(fmt[j++]);
            int length = 0;
            std::string hmods;
            while (j < fmt.size() && std::string_view("hlzLjt").find(fmt[j]) != std::string_view::npos) {
                if (fmt[j] == 'h')
                    hmods.push_back('h');
                else
                    length = fmt[j] == 'l' ? length + 1 : 1;
                ++j;
            }
            if (j >= fmt.size() || length > 2 || next_arg >= args.size()) return false;
            const char conv = fmt[j];
            if (std::string_view("diuxXos").find(conv) == std::string_view::npos) return false;
            const Node* arg = args[next_arg];
            if (conv == 's') {
                // A string field, a table name, hex bytes or a helper's text, plain.
                const bool text = arg->kind == Node::kString || arg->kind == Node::kSymbolic ||
                                  arg->kind == Node::kText || arg->kind == Node::kHex ||
                                  (arg->kind == Node::kCall && (arg->fn->text || arg->fn->text_at));
                if (spec != "%" || length || !hmods.empty() || !text) return false;
            } else if (!numeric(arg)) {
                return false;  // libtraceevent's rules for numbers from strings are not needed here
            } else {
                spec += hmods;
                spec += length == 2 ? "ll" : length == 1 ? "l" : "";
            }
            spec.push_back(conv);
            seg.spec = spec;
            seg.conv = conv;
            seg.length = length;
            seg.arg = args[next_arg++];
            r_.segments_.push_back(std::move(seg));
            seg = {};
            i = j;
        }
        r_.segments_.push_back(std::move(seg));  // the tail text
        return next_arg == args.size();
    }

    const EventType& type_;
    const std::vector<PrintFunction>& fns_;
    PrintFmtRenderer& r_;
    std::string_view s_;
    size_t pos_ = 0;
};

namespace {

// `ev` is null only for constant() nodes.
uint64_t eval(const Node& n, const Event* ev) {
    switch (n.kind) {
        case Node::kConst:
            return n.value;
        case Node::kField:
            return ev->u64(n.field);
        case Node::kCall:
            if (n.fn->value_at) return n.fn->value_at(record_tail(*ev, n.b->field));
            if (n.fn->text_at) return 0;
            return n.fn->value(eval(*n.a, ev));
        case Node::kString:
        case Node::kDynArray:
        case Node::kSymbolic:
        case Node::kHex:
        case Node::kText:
            return 0;  // not numbers (compile() keeps them out of arithmetic)
        case Node::kCast: {
            const uint64_t v = eval(*n.a, ev);
            if (n.bits >= 64) return v;
            const uint64_t mask = (uint64_t{1} << n.bits) - 1;
            uint64_t r = v & mask;
            if (n.is_signed && (r >> (n.bits - 1)) & 1) r |= ~mask;
            return r;
        }
        case Node::kUnary: {
            const uint64_t v = eval(*n.a, ev);
            return n.op[0] == '-' ? 0 - v : n.op[0] == '~' ? ~v : static_cast<uint64_t>(!v);
        }
        case Node::kBinary: {
            const uint64_t a = eval(*n.a, ev), b = eval(*n.b, ev);
            const std::string_view op(n.op);
            if (op == "+") return a + b;
            if (op == "-") return a - b;
            if (op == "*") return a * b;
            if (op == "/") return b ? a / b : 0;  // no trap on a zero divisor
            if (op == "%") return b ? a % b : 0;
            if (op == "<<") return b < 64 ? a << b : 0;
            if (op == ">>") return b < 64 ? a >> b : 0;
            if (op == "&") return a & b;
            if (op == "^") return a ^ b;
            return a | b;
        }
    }
    return 0;
}

// What a %s argument prints.
void text(const Node& n, const Event& ev, TextBuffer& out) {
    switch (n.kind) {
        case Node::kString:
            out.append(ev.str(n.field));
            return;
        case Node::kSymbolic: {
            const uint64_t v = eval(*n.a, &ev);
            for (const auto& [value, name] : n.entries) {
                if (value == v) {
                    out.append(name);
                    return;
                }
            }
            out.appendf("0x%llx", static_cast<unsigned long long>(v));
            return;
        }
        case Node::kHex: {
            // The length the format asks for; bytes past the record read as 0 (libtraceevent reads
            // whatever memory follows), and no more than a ring-buffer page could hold.
            const auto bytes = record_tail(ev, n.a->field);
            const uint64_t len = std::min<uint64_t>(eval(*n.b, &ev), uint64_t{1} << 16);
            for (uint64_t i = 0; i < len; ++i) {
                if (i) out.push_back(' ');
                out.appendf("%02x", i < bytes.size() ? bytes[i] : 0);
            }
            return;
        }
        case Node::kCall:
            if (n.fn->text_at)
                n.fn->text_at(record_tail(ev, n.b->field), eval(*n.a, &ev), out);
            else
                n.fn->text(eval(*n.a, &ev), out);
            return;
        case Node::kText:
            out.append(n.text);
            return;
        default:
            return;
    }
}

}  // namespace

PrintFmtRenderer::~PrintFmtRenderer() = default;

std::unique_ptr<PrintFmtRenderer> PrintFmtRenderer::compile(const EventType& type,
                                                            const std::vector<PrintFunction>& fns) {
    auto r = std::make_unique<PrintFmtRenderer>();
    Compiler c(type, fns, *r);
    if (!c.run()) return nullptr;
    return r;
}

void PrintFmtRenderer::render(const Event& ev, TextBuffer& out) const {
    for (const Segment& s : segments_) {
        out.append(s.literal);
        if (!s.arg) continue;
        if (s.conv == 's') {
            text(*s.arg, ev, out);
            continue;
        }
        const uint64_t v = eval(*s.arg, &ev);
        // The C type printf expects for the conversion, as libtraceevent passes it.
        if (s.length == 2)
            out.appendf(s.spec.c_str(), static_cast<long long>(v));
        else if (s.length == 1)
            out.appendf(s.spec.c_str(), static_cast<long>(v));
        else
            out.appendf(s.spec.c_str(), static_cast<int>(v));
    }
}

}  // namespace ringscope::printfmt
