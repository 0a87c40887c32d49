// One event type compiled for printing: its fields as libtraceevent sees them, the print fmt's
// argument trees and the print fmt cut into segments (literal text / one conversion each). Built
// once per event type by PrintParser, evaluated per event by PrintEvaluator without allocating.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <ringscope/error.hpp>

namespace ringscope::format {

// libtraceevent's field flags (TEP_FIELD_IS_*): printing depends on them, not on the SDK's flags.
enum TepField : uint32_t {
    kTepArray = 1,
    kTepPointer = 2,
    kTepSigned = 4,
    kTepString = 8,
    kTepDynamic = 16,
    kTepLong = 32,
    kTepRelative = 256,
};

struct PField {
    std::string name;
    std::string type;
    uint32_t offset = 0;
    uint32_t size = 0;
    uint32_t arraylen = 0;
    uint32_t elementsize = 0;
    uint32_t flags = 0;  // TepField bits
    bool common = false;
};

// Argument kinds, numbered as libtraceevent's enum tep_print_arg_type: some error texts print it.
enum class ArgKind : uint8_t {
    null_ = 0,
    atom,
    field,
    flags,
    symbol,
    hex,
    int_array,
    type,
    string,
    bstring,
    dynamic_array,
    op,
    func,
    bitmask,
    dynamic_array_len,
    hex_str,
    cpumask,
};

struct FlagSym {
    std::string value;  // as written (after constant folding)
    std::string str;
    int64_t fval = -1;  // libtraceevent's eval_flag() of value
};

struct Node {
    ArgKind kind = ArgKind::null_;
    std::string text;  // atom text, op, cast type, field name, __get_str() name, flags delimiter
    bool has_delim = false;
    int32_t field = -1;  // index into Program::fields
    int32_t a = -1;      // op left, cast item, flags/symbol/hex/array field
    int32_t b = -1;      // op right, hex size, array count
    int32_t c = -1;      // array element size
    int prio = 0;
    uint64_t num = 0;  // atom: strtoull(text, 0)
    std::vector<FlagSym> syms;
    // Prepared once by PrintParser so that evaluation compares no strings:
    char op0 = 0, op1 = 0;           // op: text[0], text[1] (0 past the end)
    bool op_index = false;           // op: "["
    bool op_cond = false;            // op: "?"
    uint64_t cast_mask = ~0ull;      // type: eval_type_str(v, text, false) == v & cast_mask
    uint64_t ptr_cast_mask = ~0ull;  // type: eval_type_str(v, text, true) == v & ptr_cast_mask
};

enum class SegKind : uint8_t { text, digit, pointer, string };

// A printf conversion as written, pre-digested so that the common cases need no vsnprintf.
struct Spec {
    bool simple = false;  // parsed into the fields below; otherwise vsnprintf(fmt) is used
    bool plain = false;   // simple %d %i %u %x %X with no flag, width or precision (the fast path)
    bool left = false, zero = false, plus = false, space = false, alt = false;
    int width = -1;  // -1 none, -2 '*'
    int prec = -1;   // -1 none, -2 '*'
    char conv = 0;
};

struct Segment {
    SegKind kind = SegKind::text;
    std::string fmt;  // literal text, or the conversion ("%-8lx", "%pS", ...)
    int32_t arg = -1;
    int32_t len_arg = -1;
    int ls = 0;  // length modifier: -2 hh, -1 h, 0 none, 1 l/z, 2 ll/L
    Spec spec;
    bool ends_0x = false;  // text ending in "0x" (tep_print_fields prints "0x" before the field)
};

struct Program {
    std::vector<PField> fields;  // common fields first, then the event's fields
    uint32_t nr_common = 0;
    std::vector<Node> nodes;
    std::vector<int32_t> args;  // roots of the print fmt arguments
    std::vector<Segment> segments;
    std::string format;   // the print fmt string (escapes not yet processed)
    bool failed = false;  // libtraceevent's TEP_EVENT_FL_FAILED
    // Set (with failed) when the print fmt nests deeper than the parser allows: where, and why.
    std::optional<Error> too_deep;
    bool is_ftrace = false;
    bool is_bprint = false;
    int long_size = 8;

    // libtraceevent clears a field's string flag the first time it prints it as ARRAY[...]; and a
    // bprint that runs out of arguments marks its event failed for all later events.
    std::unique_ptr<std::atomic<bool>[]> string_cleared;
    mutable std::atomic<bool> runtime_failed{false};

    int find_any_field(std::string_view name) const noexcept {
        for (size_t i = 0; i < fields.size(); ++i)
            if (fields[i].common && fields[i].name == name) return static_cast<int>(i);
        for (size_t i = 0; i < fields.size(); ++i)
            if (!fields[i].common && fields[i].name == name) return static_cast<int>(i);
        return -1;
    }
    int find_field(std::string_view name) const noexcept {
        for (size_t i = 0; i < fields.size(); ++i)
            if (!fields[i].common && fields[i].name == name) return static_cast<int>(i);
        return -1;
    }
    bool string_flag(int f) const noexcept {
        return (fields[f].flags & kTepString) && !string_cleared[f].load(std::memory_order_relaxed);
    }
};

}  // namespace ringscope::format
