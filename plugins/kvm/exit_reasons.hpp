// Exit-reason names for kvm_exit and the nested exit events.
//
// The kernel's own print fmt declares the names (__print_symbolic tables, always current);
// libtraceevent's kvm plugin carries VMX/SVM tables frozen years ago. Rule, per isa:
//  - VMX (isa 1; also when the event has no isa field, as the reference assumes): the format's
//    VMX table by `exit_reason & 0xffff`, plus " FAILED_VMENTRY" (the format's flags table) for the
//    high bits, as the kernel prints it; the kernel's VMX names are in the plugin's style. Without a
//    format table, or a value it lacks: the built-in table by the full value (the reference).
//  - SVM (isa 2): the built-in `EXIT_*` name when it knows the value (what trace-cmd prints); else the
//    format's name (e.g. `invpcid`, what `trace-cmd report -N` prints for it).
//  - no name: `UNKNOWN (VALUE)`; another isa: `UNKNOWN-ISA` (both as the reference).
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include <ringscope/event_type.hpp>
#include <ringscope/text_buffer.hpp>

namespace ringscope::kvm {

inline constexpr uint64_t kIsaVmx = 1;
inline constexpr uint64_t kIsaSvm = 2;

// The reference plugin's tables (libtraceevent 1.7.1), searched with its `int` comparison.
const char* builtin_vmx_reason(int value) noexcept;
const char* builtin_svm_reason(int value) noexcept;

class ExitReasonNames {
  public:
    ExitReasonNames() = default;
    // Finds the tables the print fmt applies to `field` (exit_reason or exit_code).
    ExitReasonNames(const EventType& type, std::string_view field);

    // Appends the name (no "reason " prefix) per the rule above.
    void append(uint64_t isa, uint64_t value, TextBuffer& out) const;

    bool has_format_tables() const noexcept { return !vmx_.empty() || !svm_.empty(); }

  private:
    using Table = std::vector<std::pair<uint64_t, std::string_view>>;  // sorted, first match kept
    static Table flatten(const ValueTable& t);
    static const std::string_view* find(const Table& t, uint64_t v) noexcept;

    Table vmx_, svm_;
    const ValueTable* vmx_flags_ = nullptr;
};

// True when `expr` (a print-fmt argument text such as "REC->exit_reason & 0xffff") names `field`.
bool expression_names_field(std::string_view expr, std::string_view field) noexcept;

}  // namespace ringscope::kvm
