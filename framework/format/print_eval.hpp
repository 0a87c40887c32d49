// Evaluates a compiled Program against one record, printing as libtraceevent 1.7.1's
// pretty_print() / tep_print_fields() do. No allocation per event except for bprint formats
// seen for the first time and vsnprintf fall-backs for rare conversions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include <ringscope/resolver.hpp>
#include <ringscope/text_buffer.hpp>

#include "framework/format/print_program.hpp"
#include "framework/format/record_view.hpp"
#include "framework/format/text_maps.hpp"

namespace ringscope::format {

// (PrintkMap comes from text_maps.hpp)

// Everything an evaluation needs besides the program: the record, and how to read and print it.
struct EvalContext : RecordView {
    uint32_t trailing = 0;  // readable bytes after the record (Event::trailing())
    bool file_big_endian = false;
    int long_size = 8;
    const ResolverService* resolvers = nullptr;  // may be null: addresses print as hex
    const PrintkMap* printk = nullptr;
    bool raw_symbol_addresses = false;  // FormatCatalog::set_raw_symbol_addresses
};

// A bprint argument decoded from the record (libtraceevent turns them into atoms/strings).
struct BArg {
    bool is_string = false;
    uint64_t val = 0;
    std::string_view str;
};

class PrintEvaluator {
  public:
    PrintEvaluator(const Program& prog, const EvalContext& ctx) : p_(prog), c_(ctx) {}

    // TEP_PRINT_INFO without a plugin handler.
    void print_info(TextBuffer& out) const;
    // TEP_PRINT_INFO_RAW: " name=value" for every field.
    void print_raw(TextBuffer& out) const { print_fields(out, true); }
    // tep_print_fields().
    void print_fields(TextBuffer& out, bool raw = false) const;

    // The print of one bprint record, given its format (already "%ps: " + the printk string)
    // cut into segments, and its decoded arguments.
    void print_bprint(TextBuffer& out, const std::vector<Segment>& segs, const BArg* args,
                      size_t nargs) const;

    uint64_t read_number(uint32_t off, uint32_t n) const noexcept { return c_.read_number(off, n); }
    // dynamic_offset_field(): offset and length of a __data_loc/__rel_loc field's data.
    void dynamic_offset(const PField& f, uint32_t& offset, uint32_t& len) const noexcept {
        c_.dynamic_offset(f, offset, len);
    }

  private:
    struct Ref {
        const Node* node = nullptr;
        const BArg* barg = nullptr;
    };
    const Node* node(int32_t i) const noexcept { return i < 0 ? nullptr : &p_.nodes[static_cast<size_t>(i)]; }
    Ref ref(int32_t i) const noexcept { return Ref{node(i), nullptr}; }

    uint64_t eval(const Node* n) const noexcept;
    uint64_t eval_index(const Node* n) const noexcept;
    uint64_t eval_ref(Ref r) const noexcept;
    void print_segment(TextBuffer& out, const Segment& s, Ref arg, Ref len_arg, bool raw) const;
    void print_str_arg(TextBuffer& out, const Segment& s, int len_arg, const Node* n) const;
    void print_str_field(TextBuffer& out, const Segment& s, int len_arg, const Node* n) const;
    void print_flags(TextBuffer& out, const Segment& s, int len_arg, const Node* n) const;
    void print_hex(TextBuffer& out, const Node* n) const;
    void print_int_array(TextBuffer& out, const Node* n) const;
    // The offset of __print_hex/__print_array's first argument, a field or a dynamic array.
    bool array_offset(const Node* f, uint32_t& off) const noexcept;
    void print_pointer(TextBuffer& out, const Segment& s, int plen, Ref arg, bool raw) const;
    void print_function(TextBuffer& out, char kind, uint64_t val, bool raw) const;
    void print_mac(TextBuffer& out, const char* f, const Node* n) const;
    void print_ip(TextBuffer& out, const char* f, const Node* n) const;
    void print_ip4(TextBuffer& out, char i, const char* q, const Node* n) const;
    void print_ip6(TextBuffer& out, char i, bool have_c, const Node* n) const;
    void print_ip_sockaddr(TextBuffer& out, char i, const char* q, const Node* n) const;
    // The field a %pM/%pI4/%pI6/%pU argument names, casts aside; null (after printing
    // libtraceevent's complaint when it is no field) when there is none.
    const PField* pointer_field(TextBuffer& out, const Node* n) const;
    void print_uuid(TextBuffer& out, const char* f, const Node* n) const;
    void print_raw_buff(TextBuffer& out, const char* f, const Node* n, int plen) const;
    void print_field_raw(TextBuffer& out, int field) const;
    void print_array_raw(TextBuffer& out, int field) const;
    void print_bitmask(TextBuffer& out, const Segment& s, int len_arg, uint32_t off, uint32_t len) const;
    void print_cpumask(TextBuffer& out, const Segment& s, int len_arg, uint32_t off, uint32_t len) const;
    const Node* strip_casts(const Node* n) const noexcept;
    bool in_range(uint32_t off, uint32_t n) const noexcept { return c_.in_range(off, n); }

    const Program& p_;
    const EvalContext& c_;
};

}  // namespace ringscope::format
