// One opened trace.dat file: its reader, event formats, task names and symbols, and the
// TraceContext its events point to. Buffers (the top one and instances) each give CPU streams.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <ringscope/context.hpp>
#include <ringscope/error.hpp>
#include <ringscope/resolver.hpp>
#include <ringscope/sub_buffer.hpp>

#include "framework/btf/btf.hpp"
#include "framework/engine/comm_table.hpp"
#include "framework/engine/cpu_stream.hpp"
#include "framework/engine/time_converter.hpp"
#include "framework/format/format_catalog.hpp"
#include "framework/io/trace_dat_reader.hpp"
#include "framework/symbols/resolver_registry.hpp"

namespace ringscope::engine {

struct OpenOptions {
    bool raw_ts = false;       // --raw-ts: timestamps as recorded (no shift, multiplier or offset)
    uint64_t ts2secs_hz = 0;   // --ts2secs HZ
    bool ignore_date = false;  // --nodate: leave the DATE option out of the offset
    int64_t ts_offset = 0;     // --ts-offset: added to the offset the file's options give
    bool load_kallsyms = true;
    // trace-cmd 3.4's MODULES_FILE and LAST_BOOT_INFO sections join the "kernel" symbols
    // (engine/kernel_sections.hpp); 3.1.6 ignores them.
    bool kernel_sections = true;
    // -R prints "name (0xADDR)" for symbol fields (format::FormatCatalog::set_raw_symbol_addresses).
    bool raw_symbol_addresses = false;
    // Parse the kallsyms on a thread of their own now rather than on the first look-up: for
    // report -j, whose other threads would wait for that look-up, while this one still sets up.
    bool prefetch_kallsyms = false;
    // Threads that may read the file's metadata (io::TraceDatReader::open).
    int threads = 1;
    // ... when the file holds that many bytes of CPU data: a thread is worth it only where reading
    // the events outlasts the parse (~7 ms for 5 MB of kallsyms); on a small trace it is work no
    // line may need, which exit would wait for.
    uint64_t prefetch_min_data = uint64_t{4} << 20;
};

class TraceFile final : public TraceContext {
  public:
    // `shared` answers domains this file does not hold itself (guests, plugin resolvers); may be null.
    // Errors name the file and the byte offset. The file's kallsyms are parsed on the first
    // look-up; when they do not parse, the "kernel" domain resolves nothing and its describe()
    // gives the error.
    static Expected<std::unique_ptr<TraceFile>> open(const std::string& path, const OpenOptions& options,
                                                     const ResolverService* shared = nullptr);

    const std::string& path() const noexcept { return path_; }
    const io::TraceDatReader& reader() const noexcept { return reader_; }
    const format::FormatCatalog& formats() const noexcept { return *formats_; }
    const SubBufferLayout& layout() const noexcept { return layout_; }
    TimeConverter& clock() noexcept { return clock_; }
    const TimeConverter& clock() const noexcept { return clock_; }
    CommTable& comms() noexcept { return comms_; }
    const CommTable& comms() const noexcept { return comms_; }
    symbols::ResolverRegistry& own_resolvers() noexcept { return own_resolvers_; }
    // Event formats that did not parse (libtraceevent drops them too), "system: error" (parses
    // every format on the first call).
    const std::vector<std::string>& format_errors() const;

    // The selected trace clock ("local", "x86-tsc", ...; empty when the file does not say).
    const std::string& trace_clock() const noexcept { return trace_clock_; }
    // libtracecmd's TRACECMD_FL_IN_USECS: times print as seconds with decimals (else raw counts).
    bool in_usecs() const noexcept { return in_usecs_; }
    // libtracecmd's use_trace_clock: the file has a TRACECLOCK option and no --ts2secs was given.
    bool use_trace_clock() const noexcept { return use_trace_clock_; }

    size_t buffer_count() const noexcept { return reader_.buffers().size(); }
    const std::string& buffer_name(size_t b) const { return reader_.buffers()[b].name; }
    // One stream per CPU of buffer B, in the file's CPU order (empty CPUs included). Listing a
    // compressed CPU's chunks reads a header every few KB of its data: THREADS threads list the
    // CPUs (report -j); the error is the first CPU's in file order either way.
    Expected<std::vector<CpuStream>> open_streams(size_t buffer, int threads = 1) const;

    // The event type of a payload (its common_type), or nullptr. Inline: once per event.
    const EventType* type_of(const uint8_t* data, uint32_t size) const noexcept {
        if (size < 2) return nullptr;
        uint16_t id;
        std::memcpy(&id, data, 2);
        if (swap_) id = __builtin_bswap16(id);
        return type_by_small_id(id);
    }
    // The payloads' byte order differs from the host's.
    bool swapped() const noexcept { return swap_; }
    std::vector<const EventType*> types() const { return formats_->types(); }

    // TraceContext
    std::string_view comm(int pid) const override { return comms_.get(pid); }
    // As libtraceevent's tep_register_comm: a pid keeps the first name it got.
    void register_comm(int pid, std::string_view comm) override { comms_.add(pid, comm); }
    const EventType* type_by_id(uint32_t id) const override {
        return id < type_count_ ? type_by_small_id(id) : formats_->by_id(id);
    }
    const EventType* find_type(std::string_view system, std::string_view name) const override {
        return formats_->find(system, name);
    }
    const ResolverService& resolvers() const override { return resolver_view_; }
    std::string_view source_name() const override { return path_; }
    int cpu_count() const override { return static_cast<int>(reader_.cpu_count()); }
    int long_size() const override { return layout_.long_size; }
    // Asked for every event (Event keeps whether to swap): a member, not a call into the reader.
    bool big_endian() const override { return big_endian_; }
    // From the file's BTF section (read and parsed on the first call); without one, or where it
    // does not load (libtraceevent then has no BTF either), the values in hex.
    bool print_function_args(std::span<const uint8_t> args, size_t count, int size, std::string_view func,
                             TextBuffer& out) const override;
    // Why the BTF section was not used, once a function's arguments printed without it ("BTF not
    // used: ..." or "FILE: BTF section not used: ..."); empty otherwise. Read it after the events
    // (the commands print it on stderr): it is set by the first print_function_args call.
    const std::string& btf_diagnostic() const noexcept { return btf_diagnostic_; }
    // One line per MODULES_FILE / LAST_BOOT_INFO section not used ("FILE: offset N: ..."), set at open.
    const std::vector<std::string>& section_diagnostics() const noexcept { return section_diagnostics_; }

  private:
    // This file's own domains ("kernel" from its kallsyms) first, then the shared service.
    class LayeredResolvers final : public ResolverService {
      public:
        LayeredResolvers(symbols::ResolverRegistry& own, const ResolverService* shared)
            : own_(own), shared_(shared) {}
        void add(std::string domain, std::shared_ptr<const SymbolResolver> r) override {
            own_.add(std::move(domain), std::move(r));
        }
        std::optional<Symbol> lookup(std::string_view domain, uint64_t addr) const override;
        bool has(std::string_view domain) const override;
        std::vector<std::string> domains() const override;

      private:
        symbols::ResolverRegistry& own_;
        const ResolverService* shared_;
    };

    TraceFile(io::TraceDatReader reader, const ResolverService* shared);
    void setup_clock(const OpenOptions& options);
    void index_types();
    const EventType* type_by_small_id(uint32_t id) const noexcept {
        if (id >= type_count_) return nullptr;
        const EventType* t = types_by_id_[id].load(std::memory_order_acquire);
        return t != &kUnparsed ? t : parse_type(id);
    }
    // Parses the format of the id on its first event (or look-up) and keeps the answer.
    const EventType* parse_type(uint32_t id) const noexcept;

    // types_by_id_'s mark for an id whose format is declared but not parsed yet.
    static const EventType kUnparsed;

    std::string path_;
    io::TraceDatReader reader_;
    std::unique_ptr<format::FormatCatalog> formats_;
    mutable std::once_flag format_errors_once_;
    mutable std::vector<std::string> format_errors_;
    mutable std::once_flag btf_once_;
    mutable std::unique_ptr<const btf::Btf> btf_;  // null: no BTF section, or it did not load
    mutable std::string btf_diagnostic_;
    std::vector<std::string> section_diagnostics_;
    // formats_->by_id() for every 16-bit common_type (what type_of() reads), flat; kUnparsed until
    // the first look-up of that id.
    std::unique_ptr<std::atomic<const EventType*>[]> types_by_id_;
    uint32_t type_count_ = 0;
    bool swap_ = false;
    bool big_endian_ = false;
    SubBufferLayout layout_;
    TimeConverter clock_;
    std::string trace_clock_;
    bool in_usecs_ = true;
    bool use_trace_clock_ = false;
    CommTable comms_;
    symbols::ResolverRegistry own_resolvers_;
    LayeredResolvers resolver_view_;
};

}  // namespace ringscope::engine
