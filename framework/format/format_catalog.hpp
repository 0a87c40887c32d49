// Every event type of one trace, parsed from its format files, and the default printing of its
// events: what `trace-cmd report -N` prints after "name: " (print_info) and what `-R` prints
// (print_raw). One compiled program per event type; printing an event does not allocate.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <ringscope/error.hpp>
#include <ringscope/event.hpp>
#include <ringscope/event_type.hpp>
#include <ringscope/text_buffer.hpp>

#include "framework/format/print_program.hpp"
#include "framework/format/text_maps.hpp"

namespace ringscope::format {

class CompiledPrint;

class FormatCatalog {
  public:
    // long_size and byte order of the traced kernel (the trace.dat header says them).
    explicit FormatCatalog(int long_size = 8, bool big_endian = false);
    ~FormatCatalog();
    FormatCatalog(const FormatCatalog&) = delete;
    FormatCatalog& operator=(const FormatCatalog&) = delete;

    // Parses one format file (system "ftrace" for the ftrace section). Errors (line:column) only
    // when name, ID or fields do not parse; a print fmt that does not parse is accepted and the
    // event prints "[FAILED TO PARSE]" as with libtraceevent. A later format with the same ID
    // replaces the earlier one in by_id().
    Expected<const EventType*> add_format(std::string_view text, std::string_view system);
    // The printk formats section (see parse_printk_formats); lines before an error are kept.
    Status add_printk_formats(std::string_view text);
    void add_printk_string(uint64_t addr, std::string text);

    const EventType* by_id(uint32_t id) const noexcept;
    const EventType* find(std::string_view system, std::string_view name) const noexcept;
    std::vector<const EventType*> types() const;  // in the order they were added
    size_t size() const noexcept { return entries_.size(); }
    // libtraceevent could not parse the print fmt: the event prints "[FAILED TO PARSE]".
    bool print_fmt_failed(const EventType& type) const noexcept;
    // Printing an event of this type may change how later events print, so such events must be
    // printed in time order (libtraceevent's bookkeeping: a failed print fmt's field dump clears
    // string flags, a bprint short of arguments marks its event failed). Events of other types
    // print the same whatever was printed before (`report -j` formats them in parallel).
    bool print_has_side_effects(const EventType& type) const noexcept;

    // The compiled print fmt of the type when it has one (what print_info prints, without the
    // general evaluator): `report` prints such events straight into its output.
    const CompiledPrint* compiled(const EventType& type) const noexcept;
    // Whether the file's byte order differs from the host's (RecordView::swap).
    bool swap() const noexcept { return big_endian_ != Event::host_big_endian(); }

    // The text after "name: " in `trace-cmd report -N` (tep_print_event with TEP_PRINT_INFO and
    // no plugin). Symbols (%pS, ...) come from event.context().resolvers(), domain "kernel".
    void print_info(const Event& event, TextBuffer& out) const;
    // `trace-cmd report -R` (TEP_PRINT_INFO_RAW): " field=value" for every non-common field.
    void print_raw(const Event& event, TextBuffer& out) const;
    // tep_print_fields(): like print_raw but symbols without their address in parentheses.
    void print_fields(const Event& event, TextBuffer& out) const;

    int long_size() const noexcept { return long_size_; }
    bool big_endian() const noexcept { return big_endian_; }
    const PrintkMap& printk() const noexcept { return printk_; }

  private:
    struct Entry;
    struct BprintFormat;
    const Entry* entry_for(const EventType* type) const noexcept;
    void print_bprint(const Entry& e, const Event& event, TextBuffer& out) const;

    int long_size_;
    bool big_endian_;
    std::vector<std::unique_ptr<Entry>> entries_;
    std::vector<const Entry*> by_small_id_;  // ids below 65536
    std::unordered_map<uint32_t, const Entry*> by_big_id_;
    std::unordered_map<const EventType*, const Entry*> by_type_;
    PrintkMap printk_;
    mutable std::mutex bprint_mu_;
    mutable std::map<std::pair<uint64_t, size_t>, std::unique_ptr<BprintFormat>> bprint_cache_;
};

}  // namespace ringscope::format
