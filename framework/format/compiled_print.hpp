// A print fmt compiled to a flat list of operations, for the print fmts made only of literal text
// and conversions of values read straight from the record: integers of fields and of fixed array
// elements (casts included), %s of char arrays, __get_str() and __print_symbolic() of such a
// value, plain %p. Field offsets, sizes and masks are resolved once per event type, so printing
// an event walks no argument tree and writes into memory the caller reserved, in one pass. The
// output is PrintEvaluator::print_info's, byte for byte (tests/format checks both on random
// records); print fmts with anything else are not compiled and go through PrintEvaluator.
#pragma once

#include <cstddef>
#include <cstdint>
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
    enum class OpKind : uint8_t { text, plain_int, integer, char_array, dyn_string, pointer, symbol };
    // A value as libtraceevent evaluates a field or a fixed array element under casts.
    struct Load {
        uint32_t offset = 0, size = 0;
        uint64_t mask = ~uint64_t{0};
        uint64_t read(const RecordView& rec) const noexcept { return rec.read_number(offset, size) & mask; }
    };
    struct Symbol {
        int64_t value;
        uint32_t text, len;  // in text_
    };
    struct Op {
        OpKind kind = OpKind::text;
        int8_t ls = 0;  // integer length modifier (-2 hh .. 2 ll)
        char conv = 0;  // plain_int
        Spec spec;
        Load load;
        const PField* field = nullptr;  // char_array, dyn_string
        uint32_t text = 0, len = 0;     // text: in text_; symbol: the first of len in symbols_
    };

    bool add_segment(const Program& prog, const Segment& seg);
    static bool compile_load(const Program& prog, int32_t node, Load& out);
    uint32_t add_text(std::string_view s);

    std::vector<Op> ops_;
    std::vector<Symbol> symbols_;
    std::string text_;  // literal text and symbol names
    size_t fixed_room_ = 0;
    size_t record_ops_ = 0;  // operations that may print up to the record's size
};

}  // namespace ringscope::format
