// The filter expression as libtraceevent builds it for one event type: its process_filter state
// machine (with its quirks) over the tokens, then its collapse of fields the event lacks.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <ringscope/error.hpp>
#include <ringscope/event_type.hpp>

#include "framework/filter/filter_lexer.hpp"
#include "framework/filter/filter_regex.hpp"

namespace ringscope::filter {

enum class NodeKind : uint8_t { boolean, field, value, exp, num, str, op };
enum class FieldKind : uint8_t { regular, comm, cpu };
enum class ValueKind : uint8_t { number, string, chr };
enum class ExpOp : uint8_t { add, sub, mul, div, mod, rshift, lshift, band, bor, bxor, bnot };
// eq..not_regex on numbers (regex only transiently), match..not_regex on strings.
enum class CmpOp : uint8_t { eq, ne, gt, lt, ge, le, regex, not_regex, match, not_match };
enum class BoolOp : uint8_t { land, lor, lnot };

// A field as the evaluator needs it, resolved once.
struct FieldRef {
    FieldKind kind = FieldKind::regular;
    std::string name;
    uint32_t offset = 0;
    uint32_t size = 0;
    bool is_signed = false;
    bool is_string = false;    // char/u8/s8 arrays and dynamic strings: compared as stored
    bool is_dynamic = false;   // __data_loc / __rel_loc
    bool is_relative = false;  // __rel_loc
    bool is_symbol = false;    // pointer or long: compared as a kernel symbol name
};

struct Node {
    NodeKind kind = NodeKind::boolean;
    uint8_t op = 0;  // ExpOp / CmpOp / BoolOp / ValueKind, by kind
    bool truth = false;
    int32_t left = -1;
    int32_t right = -1;
    int32_t field = -1;  // FieldRef index (field and str nodes)
    int32_t regex = -1;  // Regex index (str nodes with =~ / !~)
    uint64_t number = 0;
    std::string text;  // value text / string operand
};

struct Tree {
    std::vector<Node> nodes;
    std::vector<FieldRef> fields;
    std::vector<std::shared_ptr<const Regex>> regexes;
    int32_t root = -1;
};

// Builds the tree of `tokens` for `type`. `column_base` is the offset of the expression in the
// whole filter text, so that error columns point into that text.
Expected<Tree> build_tree(const std::vector<Token>& tokens, size_t expr_size, const EventType& type,
                          size_t column_base);

// tep_filter_make_string's notation of a tree.
std::string tree_to_string(const Tree& tree);

}  // namespace ringscope::filter
