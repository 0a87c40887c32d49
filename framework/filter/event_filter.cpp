// EventFilter: the event part (which types a filter string names) and one compiled program per
// named type, found by type id through a dense table.
#include <algorithm>
#include <cctype>
#include <optional>

#include <ringscope/filter.hpp>

#include "framework/filter/filter_lexer.hpp"
#include "framework/filter/filter_program.hpp"
#include "framework/filter/filter_regex.hpp"
#include "framework/filter/filter_tree.hpp"

namespace ringscope {

namespace {

// Above this id the dense table would waste memory; a sorted search takes over.
constexpr uint32_t kDenseLimit = 1u << 20;

Error parse_error(std::string msg, size_t column) {
    return std::move(Error(Errc::parse, std::move(msg)).at_line(1, static_cast<int>(column)));
}

std::string_view trim(std::string_view s, size_t& first) {
    size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
    first += b;
    return s.substr(b, e - b);
}

// strtok_r(piece, "/"): the first two non-empty runs between slashes.
void split_slash(std::string_view piece, size_t base, std::string_view& a, size_t& a_col, std::string_view& b,
                 size_t& b_col) {
    std::string_view* out[2] = {&a, &b};
    size_t* col[2] = {&a_col, &b_col};
    size_t k = 0, i = 0;
    while (k < 2 && i < piece.size()) {
        while (i < piece.size() && piece[i] == '/') ++i;
        if (i >= piece.size()) break;
        size_t j = i;
        while (j < piece.size() && piece[j] != '/') ++j;
        *out[k] = piece.substr(i, j - i);
        *col[k] = base + i;
        ++k;
        i = j;
    }
}

// Adds the types one piece of the event part names (`system/event` or one pattern matched against
// both) to `matched`. `start`: the piece's offset in the filter, for the error's column.
Status match_piece(std::string_view piece, size_t start, std::span<const EventType* const> types,
                   std::vector<const EventType*>& matched) {
    std::string_view first, second;
    size_t first_col = 0, second_col = 0;
    split_slash(piece, start, first, first_col, second, second_col);
    if (first.data() == nullptr) return parse_error("no filter found", start + 1);
    first = trim(first, first_col);
    second = trim(second, second_col);
    std::string_view sys, name = first;
    size_t name_col = first_col;
    if (second.data() != nullptr) {
        sys = first;
        name = second;
        name_col = second_col;
    }
    auto name_re = filter::Regex::compile("^" + std::string(name) + "$");
    if (!name_re) return parse_error("invalid event name '" + std::string(name) + "'", name_col + 1);
    std::unique_ptr<filter::Regex> sys_re;
    if (second.data() != nullptr) {
        sys_re = filter::Regex::compile("^" + std::string(sys) + "$");
        if (!sys_re) return parse_error("invalid event name '" + std::string(sys) + "'", first_col + 1);
    }
    bool any = false;
    for (const EventType* t : types) {
        if (!t) continue;
        const bool hit = sys_re ? (sys_re->search(t->system) && name_re->search(t->name))
                                : (name_re->search(t->system) || name_re->search(t->name));
        if (!hit) continue;
        any = true;
        matched.push_back(t);
    }
    if (!any) return parse_error("no event found for '" + std::string(piece) + "'", start + 1);
    return {};
}

// The types the event part names (its pieces between commas), by id, each once.
Expected<std::vector<const EventType*>> match_types(std::string_view events,
                                                    std::span<const EventType* const> types) {
    std::vector<const EventType*> matched;
    for (size_t start = 0;;) {
        const size_t comma = events.find(',', start);
        const std::string_view piece =
            events.substr(start, comma == events.npos ? events.npos : comma - start);
        if (Status st = match_piece(piece, start, types, matched); !st) return std::move(st).error();
        if (comma == events.npos) break;
        start = comma + 1;
    }
    std::sort(matched.begin(), matched.end(),
              [](const EventType* a, const EventType* b) { return a->id < b->id; });
    matched.erase(std::unique(matched.begin(), matched.end(),
                              [](const EventType* a, const EventType* b) { return a->id == b->id; }),
                  matched.end());
    return matched;
}

// The tree of a filter without an expression: TRUE.
filter::Tree true_tree() {
    filter::Tree tree;
    filter::Node all;
    all.kind = filter::NodeKind::boolean;
    all.truth = true;
    tree.nodes.push_back(std::move(all));
    tree.root = 0;
    return tree;
}

}  // namespace

struct EventFilter::Impl {
    std::string text;
    std::vector<uint32_t> ids;              // sorted
    std::vector<filter::Program> programs;  // parallel to ids
    std::vector<int32_t> dense;             // id -> index into programs, -1 when not covered

    int32_t index_of(uint32_t id) const noexcept {
        if (!dense.empty() || ids.empty()) return id < dense.size() ? dense[id] : -1;
        auto it = std::lower_bound(ids.begin(), ids.end(), id);
        return (it != ids.end() && *it == id) ? static_cast<int32_t>(it - ids.begin()) : -1;
    }
};

EventFilter::EventFilter() : impl_(std::make_unique<Impl>()) {}
EventFilter::~EventFilter() = default;
EventFilter::EventFilter(EventFilter&&) noexcept = default;
EventFilter& EventFilter::operator=(EventFilter&&) noexcept = default;

Expected<EventFilter> EventFilter::parse(std::string_view text, std::span<const EventType* const> types) {
    // libtraceevent reads a C string; a NUL inside would silently cut the filter short here.
    if (const size_t nul = text.find('\0'); nul != text.npos)
        return parse_error("Unexpected character", nul + 1);
    const size_t colon = text.find(':');
    auto matched = match_types(colon == text.npos ? text : text.substr(0, colon), types);
    if (!matched) return std::move(matched).error();

    EventFilter out;
    Impl& im = *out.impl_;
    im.text = std::string(text);

    std::vector<filter::Token> tokens;
    std::string_view expr;
    const size_t base = colon == text.npos ? 0 : colon + 1;
    if (colon != text.npos) {
        expr = text.substr(base);
        auto toks = filter::tokenize(expr);
        if (!toks) {
            Error e = std::move(toks).error();
            return parse_error(e.message(), base + static_cast<size_t>(e.column()));
        }
        tokens = std::move(*toks);
    }

    std::optional<Error> first_error;
    const EventType* error_type = nullptr;
    bool any_ok = false;
    for (const EventType* t : *matched) {
        auto tree = colon == text.npos ? Expected<filter::Tree>(true_tree())
                                       : filter::build_tree(tokens, expr.size(), *t, base);
        if (!tree) {
            if (!first_error) {
                first_error = std::move(tree).error();
                error_type = t;
            }
            continue;
        }
        any_ok = true;
        im.ids.push_back(t->id);
        im.programs.push_back(filter::Program::compile(*tree));
    }
    if (first_error) {
        // Errors that depend on the fields of one type say which type.
        if (any_ok) {
            Error e(first_error->code(),
                    first_error->message() + " (event " + error_type->system + "/" + error_type->name + ")");
            e.at_line(first_error->line(), first_error->column());
            return e;
        }
        return std::move(*first_error);
    }
    if (!im.ids.empty() && im.ids.back() < kDenseLimit) {
        im.dense.assign(im.ids.back() + 1, -1);
        for (size_t i = 0; i < im.ids.size(); ++i) im.dense[im.ids[i]] = static_cast<int32_t>(i);
    }
    return out;
}

FilterResult EventFilter::test(const Event& ev) const noexcept {
    if (!impl_) return FilterResult::not_found;  // moved-from
    const int32_t i = impl_->index_of(ev.id());
    if (i < 0) return FilterResult::not_found;
    const int r = impl_->programs[static_cast<size_t>(i)].evaluate(ev);
    return r < 0 ? FilterResult::error : r ? FilterResult::match : FilterResult::miss;
}

bool EventFilter::covers(uint32_t type_id) const noexcept {
    return impl_ && impl_->index_of(type_id) >= 0;
}

std::vector<uint32_t> EventFilter::type_ids() const {
    return impl_ ? impl_->ids : std::vector<uint32_t>();
}

std::string EventFilter::describe(uint32_t type_id) const {
    const int32_t i = impl_ ? impl_->index_of(type_id) : -1;
    return i < 0 ? std::string() : impl_->programs[static_cast<size_t>(i)].description();
}

const std::string& EventFilter::text() const noexcept {
    static const std::string kEmpty;
    return impl_ ? impl_->text : kEmpty;
}

}  // namespace ringscope
