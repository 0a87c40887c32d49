#include "framework/engine/trace_file.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "framework/engine/blktrace_format.hpp"
#include "framework/engine/kernel_sections.hpp"
#include "framework/engine/parallel_for.hpp"
#include "framework/io/unfinished_trace.hpp"
#include "framework/symbols/lazy_kallsyms_resolver.hpp"

namespace ringscope::engine {

std::optional<Symbol> TraceFile::LayeredResolvers::lookup(std::string_view domain, uint64_t addr) const {
    if (own_.has(domain)) return own_.lookup(domain, addr);
    return shared_ ? shared_->lookup(domain, addr) : std::nullopt;
}

bool TraceFile::LayeredResolvers::has(std::string_view domain) const {
    return own_.has(domain) || (shared_ && shared_->has(domain));
}

std::vector<std::string> TraceFile::LayeredResolvers::domains() const {
    std::vector<std::string> d = own_.domains();
    if (shared_) {
        for (auto& s : shared_->domains())
            if (std::find(d.begin(), d.end(), s) == d.end()) d.push_back(std::move(s));
    }
    std::sort(d.begin(), d.end());
    return d;
}

TraceFile::TraceFile(io::TraceDatReader reader, const ResolverService* shared)
    : path_(reader.path()), reader_(std::move(reader)), resolver_view_(own_resolvers_, shared) {
    big_endian_ = reader_.big_endian();
}

Expected<std::unique_ptr<TraceFile>> TraceFile::open(const std::string& path, const OpenOptions& options,
                                                     const ResolverService* shared) {
    auto reader = io::TraceDatReader::open(path, options.threads);
    if (!reader) {
        if (auto killed = io::unfinished_trace_error(path)) return std::move(*killed);
        return std::move(reader).error().in_file(path);
    }
    std::unique_ptr<TraceFile> f(new TraceFile(std::move(*reader), shared));
    f->path_ = path;  // as the user gave it (trace-cmd prints it so)
    const io::TraceMetadata& md = f->reader_.metadata();
    const bool big = f->reader_.big_endian();

    auto layout = SubBufferLayout::from_header_page(md.header_page,
                                                    big ? SubBufferEndian::big : SubBufferEndian::little);
    if (!layout) return std::move(layout).error().in_file(path);
    f->layout_ = *layout;

    // Formats are parsed on first use (most traces use a few dozen of thousands). Those that do not
    // parse are dropped, as libtraceevent drops them; their events then print as unknown.
    // format_errors() gives the errors. The texts live in reader_'s metadata, which outlives formats_.
    f->formats_ = std::make_unique<format::FormatCatalog>(static_cast<int>(f->layout_.long_size), big);
    f->formats_->set_raw_symbol_addresses(options.raw_symbol_addresses);
    for (const auto& text : md.ftrace_formats) (void)f->formats_->declare_format(text, "ftrace");
    for (const auto& sys : md.event_systems)
        for (const auto& text : sys.formats) (void)f->formats_->declare_format(text, sys.system);
    if (!md.printk_formats.empty()) (void)f->formats_->add_printk_formats(md.printk_formats);
    // libtracecmd's made-up ftrace:blktrace, declared last as tracecmd_init_data() adds it
    if (auto blk = blktrace_format(*f->formats_)) (void)f->formats_->add_format(*blk, "ftrace");
    f->index_types();

    f->comms_.load_saved_cmdlines(md.saved_cmdlines);
    std::shared_ptr<symbols::LazyKallsymsResolver> kallsyms;
    if (options.load_kallsyms && !md.kallsyms.empty()) {
        // Parsed on the first symbol look-up: counting or filtering events never needs one.
        kallsyms = std::make_shared<symbols::LazyKallsymsResolver>(md.kallsyms, path + " kallsyms",
                                                                   f->reader_.shared_metadata());
        uint64_t data = 0;
        for (const auto& b : f->reader_.buffers())
            for (const auto& c : b.cpus) data += c.size;
        if (options.prefetch_kallsyms && data >= options.prefetch_min_data) kallsyms->prefetch();
    }
    if (options.load_kallsyms)
        if (auto kernel = kernel_resolver(f->reader_, path, std::move(kallsyms), options.kernel_sections,
                                          f->section_diagnostics_))
            f->own_resolvers_.add(std::string(kKernelDomain), std::move(kernel));
    f->setup_clock(options);
    return f;
}

void TraceFile::setup_clock(const OpenOptions& options) {
    const io::TraceDatOptions& o = reader_.options();
    clock_ = TimeConverter::from_options(o);
    clock_.set_raw(options.raw_ts);
    use_trace_clock_ = o.trace_clock.has_value();
    if (options.ts2secs_hz) {
        clock_.set_ts2secs_hz(options.ts2secs_hz);
        use_trace_clock_ = false;
    }
    // DATE (microseconds, "0x..." text) and OFFSET (nanoseconds) add to the user's offset, as
    // libtracecmd reads them.
    int64_t offset = options.ts_offset;
    if (!options.raw_ts) {
        if (o.date && !options.ignore_date) offset += std::strtoll(o.date->c_str(), nullptr, 0) * 1000;
        if (o.offset) offset += std::strtoll(o.offset->c_str(), nullptr, 0);
    }
    clock_.set_offset(offset);

    // libtracecmd prints seconds unless the selected clock counts something else (extract_trace_clock).
    if (!reader_.buffers().empty()) trace_clock_ = reader_.buffers()[0].clock;
    in_usecs_ = true;
    if (!trace_clock_.empty()) {
        if (options.raw_ts) in_usecs_ = false;
        const bool tsc_mult = !options.raw_ts && o.tsc2nsec && o.tsc2nsec->mult != 0;
        if (!tsc_mult) {
            const std::string& c = trace_clock_;
            if (c != "local" && c != "global" && c != "uptime" && c != "perf" &&
                c.compare(0, 4, "mono") != 0 && c != "tsc2nsec" && c != "tai")
                in_usecs_ = false;
        }
    }
}

Expected<std::vector<CpuStream>> TraceFile::open_streams(size_t buffer, int threads) const {
    std::vector<CpuStream> streams;
    if (buffer >= reader_.buffers().size()) {
        return Error(Errc::invalid_argument, "no buffer " + std::to_string(buffer)).in_file(path_);
    }
    const auto& b = reader_.buffers()[buffer];
    std::vector<std::optional<Expected<io::CpuPageReader>>> pages(b.cpus.size());
    // Uncompressed data has no chunks to list: one thread opens its CPUs.
    parallel_for(pages.size(), b.compressed ? threads : 1,
                 [&](size_t i) { pages[i].emplace(reader_.cpu_pages(buffer, i)); });
    streams.reserve(pages.size());
    for (size_t i = 0; i < pages.size(); ++i) {
        if (!*pages[i]) return std::move(*pages[i]).error().in_file(path_);
        streams.emplace_back(std::move(**pages[i]), layout_, &clock_, static_cast<int>(i));
    }
    return streams;
}

const EventType TraceFile::kUnparsed{};

void TraceFile::index_types() {
    swap_ = big_endian_ != (std::endian::native == std::endian::big);
    type_count_ = formats_->small_id_bound();
    types_by_id_ = std::make_unique<std::atomic<const EventType*>[]>(type_count_);
    for (uint32_t id = 0; id < type_count_; ++id)
        types_by_id_[id].store(formats_->declares(id) ? &kUnparsed : nullptr, std::memory_order_relaxed);
}

const EventType* TraceFile::parse_type(uint32_t id) const noexcept {
    // by_id() decides which of two formats with the same id counts (the later one that parses).
    const EventType* t = formats_->by_id(id);
    types_by_id_[id].store(t, std::memory_order_release);
    return t;
}

const std::vector<std::string>& TraceFile::format_errors() const {
    std::call_once(format_errors_once_, [this] {
        // "FILE: SYSTEM: line L, column C: what" (the line is the format's)
        for (const auto& [system, error] : formats_->errors())
            format_errors_.push_back(path_ + ": " + (system == "ftrace" ? "" : system + ": ") +
                                     error.to_string());
    });
    return format_errors_;
}

bool TraceFile::print_function_args(std::span<const uint8_t> args, size_t count, int size,
                                    std::string_view func, TextBuffer& out) const {
    std::call_once(btf_once_, [this] {
        // Without BTF the values print in hex, as libtraceevent prints them; btf_diagnostic() says why.
        auto blob = reader_.option_section(io::OptionId::btf_file);
        if (!blob) {
            btf_diagnostic_ = "BTF not used: " + blob.error().to_string();
            return;
        }
        if (!*blob) return;
        auto parsed = btf::Btf::parse(std::move(**blob));
        if (!parsed) {
            btf_diagnostic_ = path_ + ": BTF section not used: " + parsed.error().message() + " (byte " +
                              std::to_string(parsed.error().offset()) + " of the section)";
            return;
        }
        btf_ = std::make_unique<const btf::Btf>(std::move(*parsed));
    });
    if (btf_) return btf_->print_args(args, count, size, func, out);
    return TraceContext::print_function_args(args, count, size, func, out);
}

}  // namespace ringscope::engine
