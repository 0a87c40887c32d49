// A print fmt compiled to a flat list of operations, for the print fmts made only of literal text
// and conversions of values read straight from the record: integers of fields and of fixed array
// elements (casts included), %s of char arrays, __get_str() and __print_symbolic() of such a
// value, plain %p. Field offsets, sizes and masks are resolved once per event type, so printing
// an event walks no argument tree and writes into memory the caller reserved, in one pass. The
// output is PrintEvaluator::print_info's, byte for byte (tests/format checks both on random
// records); print fmts with anything else are not compiled and go through PrintEvaluator.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "framework/format/print_program.hpp"
#include "framework/format/record_view.hpp"

namespace ringscope::format {

class CompiledPrint {
  public:
    // Null when some part of the print fmt needs the general evaluator (or the fmt failed).
    static std::unique_ptr<CompiledPrint> compile(const Program& prog);

    // The most write() may write for a record of this size.
    size_t room(uint32_t record_size) const noexcept {
        return fixed_room_ + record_ops_ * size_t{record_size};
    }
    // Prints the record at dst (which has room(rec.size) bytes); returns the bytes written.
    size_t write(char* dst, const RecordView& rec) const noexcept;

  private:
    // Each operation writes a literal (at most kLiteral bytes, copied as one fixed-size store), then
    // its conversion; longer literals are split over several `none` operations. Plain integer
    // conversions have their own kinds, so they branch on nothing at run time.
    static constexpr size_t kLiteral = 16;
    enum class OpKind : uint8_t {
        none,       // the literal alone
        hex,        // plain %x (lowercase) of the masked value
        hex_upper,  // plain %X
        udec,       // plain %u
        sdec,       // plain %d %i: the value sign-extended from the conversion's width
        integer,    // any other bounded integer spec
        char_array,
        dyn_string,
        pointer,
        symbol,
    };
    // A value as libtraceevent evaluates a field or a fixed array element under casts.
    struct Load {
        uint32_t offset = 0, size = 0;
        uint64_t mask = ~uint64_t{0};       // the casts' (and a plain conversion's width)
        uint64_t wide_mask = ~uint64_t{0};  // mask and the field's size: for an 8-byte read
        uint64_t read(const RecordView& rec) const noexcept {
            // the common case in one unaligned load: host byte order and 8 bytes in the record
            if (std::endian::native == std::endian::little && !rec.swap && size_t{offset} + 8 <= rec.size) {
                uint64_t v;
                std::memcpy(&v, rec.data + offset, 8);
                return v & wide_mask;
            }
            return rec.read_number(offset, size) & mask;
        }
    };
    struct Symbol {
        int64_t value;
        uint32_t text, len;  // in text_
    };
    // What the less common kinds need besides the load (kept out of Op so that it stays small).
    struct Detail {
        Spec spec;
        const PField* field = nullptr;           // char_array, dyn_string
        uint32_t first_symbol = 0, symbols = 0;  // symbol: in symbols_
    };
    struct Op {
        OpKind kind = OpKind::none;
        uint8_t literal_len = 0;
        int8_t ls = 0;           // integer length modifier (-2 hh .. 2 ll)
        uint8_t sign_shift = 0;  // sdec: 64 - the conversion's width in bits
        uint32_t detail = 0;     // in details_
        char literal[kLiteral] = {};
        Load load;
    };

    bool add_segment(const Program& prog, const Segment& seg);
    // A %d/%u/%x-like conversion, and a %s one (of `arg`), into `op` and `detail`; false when
    // the conversion is not one the compiled form prints.
    bool add_integer(const Program& prog, const Segment& seg, Op& op);
    bool add_string(const Program& prog, const Segment& seg, const Node* arg, Op& op, Detail& detail);
    static bool compile_load(const Program& prog, int32_t node, Load& out);
    void add_literal(std::string_view s);
    void push(Op op, const Detail* detail = nullptr);
    uint32_t add_text(std::string_view s);

    std::vector<Op> ops_;
    std::vector<Detail> details_;
    std::vector<Symbol> symbols_;
    std::string text_;     // symbol names
    std::string pending_;  // literal text not yet attached to an operation
    size_t fixed_room_ = 0;
    size_t record_ops_ = 0;  // operations that may print up to the record's size
};

}  // namespace ringscope::format
