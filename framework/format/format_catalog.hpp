// Every event type of one trace, parsed from its format files, and the default printing of its
// events: what `trace-cmd report -N` prints after "name: " (print_info) and what `-R` prints
// (print_raw). One compiled program per event type; printing an event does not allocate.
// A trace holds thousands of formats and most traces use a few dozen: declare_format() only reads
// a format's name and ID and parses the rest on the first look-up that needs that event.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
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
    // The same, parsed on first use: by_id(), find() and types_if() parse the formats they may
    // return, types(), size() and errors() all of them. `text` must outlive the catalog. A format
    // whose name and ID do not read plainly is parsed here (the error is returned now).
    Status declare_format(std::string_view text, std::string_view system);
    // Formats declared that did not parse, in the order declared, each with its system (parses all).
    std::vector<std::pair<std::string, Error>> errors() const;
    // Print fmts that were refused for nesting too deep (they print "[FAILED TO PARSE]"), among
    // the formats parsed so far (parses none): "SYSTEM/NAME" and where. errors() lists them too.
    std::vector<std::pair<std::string, Error>> too_deep() const;
    // The printk formats section (see parse_printk_formats); lines before an error are kept.
    Status add_printk_formats(std::string_view text);
    void add_printk_string(uint64_t addr, std::string text);

    const EventType* by_id(uint32_t id) const noexcept;
    const EventType* find(std::string_view system, std::string_view name) const noexcept;
    std::vector<const EventType*> types() const;  // in the order they were added
    // The types whose system and name `match` accepts, in the order added; parses only those.
    std::vector<const EventType*> types_if(
        const std::function<bool(std::string_view system, std::string_view name)>& match) const;
    size_t size() const noexcept { return types().size(); }
    // One more than the biggest ID below 65536 declared or added (0 when none), and whether a
    // format declares that ID: what a flat id -> type table needs without parsing.
    uint32_t small_id_bound() const noexcept { return static_cast<uint32_t>(by_small_id_.size()); }
    bool declares(uint32_t id) const noexcept {
        return id < by_small_id_.size() && !by_small_id_[id].empty();
    }
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
    // What print_info prints for an event whose type has this compiled print fmt, written straight
    // into `out` (callers that cached compiled() per type skip the look-up of print_info).
    static void print_compiled(const CompiledPrint& print, const Event& event, bool swap, TextBuffer& out);
    // Whether the file's byte order differs from the host's (RecordView::swap).
    bool swap() const noexcept { return big_endian_ != Event::host_big_endian(); }

    // The text after "name: " in `trace-cmd report -N` (tep_print_event with TEP_PRINT_INFO and
    // no plugin). Symbols (%pS, ...) come from event.context().resolvers(), domain "kernel".
    void print_info(const Event& event, TextBuffer& out) const;
    // `trace-cmd report -R` (TEP_PRINT_INFO_RAW): " field=value" for every non-common field.
    void print_raw(const Event& event, TextBuffer& out) const;
    // libtraceevent 1.8 (trace-cmd 3.3+): print_raw's %pS/%ps fields add their address,
    // "name+0x10 (0xADDR)"; libtraceevent 1.7.1 (trace-cmd 3.1) prints the name alone.
    // The same for the events -r prints raw (libtraceevent 1.8 prints them as print_raw does).
    void set_raw_symbol_addresses(bool on) noexcept { raw_symbol_addresses_ = on; }
    bool raw_symbol_addresses() const noexcept { return raw_symbol_addresses_; }
    // tep_print_fields(): like print_raw but symbols without their address in parentheses.
    void print_fields(const Event& event, TextBuffer& out) const;

    int long_size() const noexcept { return long_size_; }
    bool big_endian() const noexcept { return big_endian_; }
    const PrintkMap& printk() const noexcept { return printk_; }

  private:
    struct Entry;
    struct BprintFormat;
    Entry& new_entry(std::string_view text, std::string_view system, std::string_view name, uint32_t id);
    // The entry's type once parsed (parsing it on the first call), nullptr when it does not parse.
    const EventType* parsed(const Entry& e) const noexcept;
    const Entry* entry_for(const EventType* type) const noexcept;
    const std::vector<const Entry*>* entries_of(uint32_t id) const noexcept;  // in the order added
    void print_bprint(const Entry& e, const Event& event, TextBuffer& out) const;

    int long_size_;
    bool big_endian_;
    bool raw_symbol_addresses_ = false;
    std::vector<std::unique_ptr<Entry>> entries_;
    // Every entry of an ID, in the order added: the last one that parses is by_id()'s.
    std::vector<std::vector<const Entry*>> by_small_id_;  // ids below 65536
    std::unordered_map<uint32_t, std::vector<const Entry*>> by_big_id_;
    PrintkMap printk_;
    mutable std::mutex bprint_mu_;
    mutable std::map<std::pair<uint64_t, size_t>, std::unique_ptr<BprintFormat>> bprint_cache_;
};

}  // namespace ringscope::format
