// The __print_symbolic/__print_flags tables of a parsed print fmt, with the field (or the
// expression's text) each one decodes; plugins and filters look them up by field name.
#include "framework/format/print_parser.hpp"

namespace ringscope::format {

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
