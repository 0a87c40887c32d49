// The print fmt parser: builds the argument trees exactly as libtraceevent's event-parse.c does
// (including its operator-precedence and associativity quirks, which change printed values) and
// cuts the format string into segments, as its parse_args() does for the print cache.
#pragma once

#include <string>
#include <vector>

#include <ringscope/event_type.hpp>

#include "framework/format/print_program.hpp"
#include "framework/format/tokenizer.hpp"

namespace ringscope::format {

class PrintParser {
  public:
    // How deep the parser's functions may call each other (a level of parentheses, `?:` or
    // function call, or an operator of a chain, costs one or two): a hostile print fmt nested
    // 20k deep overflowed the stack. Kernel print fmts stay below 30.
    static constexpr int kMaxDepth = 256;

    PrintParser(Tokenizer& tk, Program& prog) : tk_(tk), p_(prog) {}

    // Reads "print fmt: ..." from the tokenizer; on failure marks the program failed.
    void parse();
    // Whether an argument of __print_array, __print_hex... did not parse in
    // alloc_and_process_delim(), where libtraceevent sets errno to EINVAL (ParsedFormat).
    bool sets_einval() const noexcept { return sets_einval_; }
    // The __print_symbolic/__print_flags tables found in the arguments.
    void fill_tables(std::vector<ValueTable>& out) const;

    // parse_args(): the segments of a format string whose conversions take args[0..] in order.
    // Sets *failed when a conversion finds no argument (libtraceevent's TEP_EVENT_FL_FAILED).
    static std::vector<Segment> cut_segments(const std::string& format, const std::vector<int32_t>& args,
                                             bool* failed);

  private:
    using T = TokType;
    int32_t new_node() {
        p_.nodes.emplace_back();
        return static_cast<int32_t>(p_.nodes.size() - 1);
    }
    Node& n(int32_t i) { return p_.nodes[static_cast<size_t>(i)]; }

    bool read_print();
    int read_print_args();
    T process_arg(int32_t arg, std::string& tok);
    T process_arg_token(int32_t arg, std::string& tok, T type);
    T process_op(int32_t arg, std::string& tok);
    int32_t push_down(int32_t arg, const std::string& token);
    T process_cond(int32_t top, std::string& tok);
    T process_array(int32_t top, std::string& tok);
    T process_entry(int32_t arg, std::string& tok);
    T process_paren(int32_t arg, std::string& tok);
    T process_function(int32_t arg, const std::string& name, std::string& tok);
    T process_flags(int32_t arg, std::string& tok, bool flags);
    T process_fields(std::vector<FlagSym>& list, std::string& tok);
    T process_hex(int32_t arg, std::string& tok, ArgKind kind);
    T process_int_array(int32_t arg, std::string& tok);
    T process_dynamic_array(int32_t arg, std::string& tok);
    T process_dynamic_array_len(int32_t arg, std::string& tok);
    T process_named(int32_t arg, std::string& tok, ArgKind kind);
    T process_builtin_expect(int32_t arg, std::string& tok);
    T process_sizeof(int32_t arg, std::string& tok);
    bool alloc_and_process_delim(const char* next, int32_t& out);
    bool consolidate(T type, int32_t arg);
    bool arg_num_eval(int32_t arg, long long& val);
    bool arg_eval(int32_t arg, std::string& out);
    void collect_tables(int32_t arg, std::vector<ValueTable>& out) const;
    std::string expr_text(int32_t arg) const;
    void count_fields(int32_t arg, std::string& name, int& count) const;

    // Counts one level of the parser's recursion; past kMaxDepth the parse fails (once, with
    // Program::too_deep saying where).
    class DepthGuard {
      public:
        explicit DepthGuard(PrintParser& p);
        ~DepthGuard() { --p_.depth_; }
        bool too_deep() const noexcept { return p_.depth_ > kMaxDepth; }

      private:
        PrintParser& p_;
    };

    Tokenizer& tk_;
    Program& p_;
    int depth_ = 0;
    bool sets_einval_ = false;
};

// libtraceevent's get_op_prio(): -1 for an unknown operator.
int op_prio(const std::string& op);
// libtraceevent's eval_type_str(): what a cast to `type` does to a value.
uint64_t eval_type_str(uint64_t val, const std::string& type, bool pointer);
// libtraceevent's eval_flag(): the value of a __print_flags/__print_symbolic entry.
int64_t eval_flag(const std::string& value);

}  // namespace ringscope::format
