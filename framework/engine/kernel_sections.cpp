#include "framework/engine/kernel_sections.hpp"

#include <optional>

#include "framework/io/byte_cursor.hpp"
#include "framework/symbols/kernel_sections_resolver.hpp"

namespace ringscope::engine {

namespace {

const char* section_name(io::OptionId id) {
    return id == io::OptionId::modules_file ? "MODULES_FILE" : "LAST_BOOT_INFO";
}

// Where the option's section lies (v7: its offset), for the diagnostic; -1 without one (v6).
int64_t section_offset(const io::TraceDatReader& reader, io::OptionId id) {
    int64_t off = Error::kNoOffset;
    for (const io::RawOption& r : reader.options().unknown)
        if (r.id == static_cast<uint16_t>(id) && reader.file_version() >= 7 && r.data.size() >= 8)
            off = static_cast<int64_t>(io::load_endian<uint64_t>(r.data.data(), reader.big_endian()));
    return off;
}

// "PATH: offset 0x...: MODULES_FILE section: line L, column C: what; not used"
std::string not_used(const io::TraceDatReader& reader, const std::string& path, io::OptionId id,
                     const Error& e) {
    std::string what =
        std::string(section_name(id)) + " section (option " + std::to_string(static_cast<int>(id)) + "): ";
    if (e.line() > 0)
        what += "line " + std::to_string(e.line()) + ", column " + std::to_string(e.column()) + ": ";
    what += e.message() + "; not used";
    return Error(e.code(), what).at_offset(section_offset(reader, id)).in_file(path).to_string();
}

// The section's text, nullopt when the file has none or it does not read (DIAGNOSTICS says so).
std::optional<std::string> section(const io::TraceDatReader& reader, io::OptionId id,
                                   std::vector<std::string>& diagnostics) {
    auto text = reader.option_section(id);
    if (!text) {
        diagnostics.push_back(text.error().to_string() + " (" + section_name(id) + " section not used)");
        return std::nullopt;
    }
    return std::move(*text);
}

template <class T>
std::optional<T> parsed(const io::TraceDatReader& reader, const std::string& path, io::OptionId id,
                        std::vector<std::string>& diagnostics) {
    auto text = section(reader, id, diagnostics);
    if (!text) return std::nullopt;
    auto v = T::parse(*text);
    if (!v) {
        diagnostics.push_back(not_used(reader, path, id, v.error()));
        return std::nullopt;
    }
    return std::move(*v);
}

}  // namespace

std::shared_ptr<const SymbolResolver> kernel_resolver(
    const io::TraceDatReader& reader, const std::string& path,
    std::shared_ptr<const symbols::LazyKallsymsResolver> kallsyms, bool use_sections,
    std::vector<std::string>& diagnostics) {
    if (!use_sections) return kallsyms;
    auto modules = parsed<symbols::ModuleList>(reader, path, io::OptionId::modules_file, diagnostics);
    auto last_boot = parsed<symbols::LastBootInfo>(reader, path, io::OptionId::last_boot_info, diagnostics);
    std::optional<symbols::BootRelocation> relocation;
    if (last_boot && last_boot->previous_boot()) {
        // The 6.14.5 and 6.15 forms need this boot's _text: the kallsyms are parsed now (only
        // files with a previous boot's buffer pay for it at open).
        std::optional<uint64_t> text;
        if (last_boot->form == symbols::LastBootInfo::Form::kernel_address && kallsyms)
            if (auto table = kallsyms->table()) text = table->address_of("_text");
        auto r = symbols::BootRelocation::make(*last_boot, text, modules ? &*modules : nullptr);
        if (r)
            relocation = std::move(*r);
        else
            diagnostics.push_back(not_used(reader, path, io::OptionId::last_boot_info, r.error()));
    }
    if ((!modules || modules->empty()) && !relocation) return kallsyms;
    if (modules && modules->empty()) modules.reset();
    return std::make_shared<const symbols::KernelSectionsResolver>(std::move(kallsyms), std::move(modules),
                                                                   std::move(relocation));
}

}  // namespace ringscope::engine
