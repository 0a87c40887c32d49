// A small print fmt evaluator for the events whose print fmt calls a helper function that only a
// libtraceevent plugin defines (jbd2's jiffies_to_msecs and jbd2_dev_to_name, xen's
// xen_hypercall_name, cfg80211's __le16_to_cpup, scsi's scsi_trace_parse_cdb): the framework's
// default printer cannot evaluate those, so these plugins render the whole line themselves. It knows
// what such formats use: printf text with %d %i %u %x %X %o %s (h/hh/l/ll/z lengths, flags, width,
// precision), REC->field, REC->array[constant], strings (char arrays, __get_str) for %s,
// __get_dynamic_array as a pointer argument of a helper, __print_symbolic of any number (its table
// as written), __print_hex, string literals for %s, integer literals, casts, unary - ~ !,
// * / % + - << >> & ^ |, and calls of the helper functions given to compile(). Anything else makes
// compile() fail (the caller then keeps the default print). Shared by plugins/jbd2, xen, cfg80211
// and scsi (compiled into each).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <ringscope/event.hpp>
#include <ringscope/text_buffer.hpp>

namespace ringscope::printfmt {

// A helper function of the print fmt.
struct PrintFunction {
    std::string_view name;
    uint64_t (*value)(uint64_t arg);              // the number it returns for one numeric argument
    void (*text)(uint64_t arg, TextBuffer& out);  // what it prints for %s (null: not a string)
    // For helpers that take a pointer into the record (__le16_to_cpup(__get_dynamic_array(x))):
    // the number read from the event's bytes there; null when the helper takes numbers. `bytes` runs
    // from the array to the end of the record, as the pointer libtraceevent passes does.
    uint64_t (*value_at)(std::span<const uint8_t> bytes) = nullptr;
    // For scsi_trace_parse_cdb(p, __get_dynamic_array(x), LEN): the text for the bytes at the array
    // (to the end of the record) and LEN; the first argument (the kernel's trace_seq) is ignored.
    void (*text_at)(std::span<const uint8_t> bytes, uint64_t len, TextBuffer& out) = nullptr;
};

class PrintFmtRenderer {
  public:
    // Null when the print fmt uses something this evaluator does not know.
    static std::unique_ptr<PrintFmtRenderer> compile(const EventType& type,
                                                     const std::vector<PrintFunction>& fns);

    void render(const Event& ev, TextBuffer& out) const;

    struct Node;  // an expression (defined in the .cpp)
    struct Segment {
        std::string literal;  // text before the conversion (escapes resolved)
        std::string spec;     // the printf conversion rewritten for its C type, empty for the tail
        char conv = 0;        // d i u x X o s
        int length = 0;       // 0 int, 1 long, 2 long long (h/hh as int: printf narrows)
        const Node* arg = nullptr;
    };

    PrintFmtRenderer() = default;
    ~PrintFmtRenderer();
    PrintFmtRenderer(const PrintFmtRenderer&) = delete;
    PrintFmtRenderer& operator=(const PrintFmtRenderer&) = delete;

  private:
    std::vector<Segment> segments_;
    std::vector<std::unique_ptr<Node>> nodes_;  // owns every node of every argument
    friend class Compiler;
};

}  // namespace ringscope::printfmt
