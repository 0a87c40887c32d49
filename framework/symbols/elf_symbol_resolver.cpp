#include "framework/symbols/elf_symbol_resolver.hpp"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

namespace ringscope::symbols {
namespace {

// Closes the ELF handle and the fd on every path out of open().
struct ElfFile {
    int fd = -1;
    Elf* elf = nullptr;
    ~ElfFile() {
        if (elf) elf_end(elf);
        if (fd >= 0) close(fd);
    }
};

Error elf_error(Errc code, const std::string& path, std::string what) {
    const char* msg = elf_errmsg(-1);
    if (msg && *msg) what += std::string(": ") + msg;
    return Error(code, std::move(what)).in_file(path);
}

// The module name a kernel module carries in .modinfo ("name=kvm_amd").
std::string modinfo_name(Elf* elf, size_t shstrndx) {
    Elf_Scn* scn = nullptr;
    while ((scn = elf_nextscn(elf, scn)) != nullptr) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh)) continue;
        const char* sname = elf_strptr(elf, shstrndx, sh.sh_name);
        if (!sname || std::strcmp(sname, ".modinfo") != 0 || sh.sh_type == SHT_NOBITS) continue;
        Elf_Data* d = elf_getdata(scn, nullptr);
        if (!d || !d->d_buf) return {};
        std::string_view all(static_cast<const char*>(d->d_buf), d->d_size);
        size_t p = 0;
        while (p < all.size()) {
            size_t e = all.find('\0', p);
            if (e == std::string_view::npos) e = all.size();
            std::string_view kv = all.substr(p, e - p);
            if (kv.substr(0, 5) == "name=") return std::string(kv.substr(5));
            p = e + 1;
        }
    }
    return {};
}

std::string module_from_path(const std::string& path) {
    std::string base = path.substr(path.find_last_of('/') + 1);
    if (auto dot = base.find('.'); dot != std::string::npos) base.resize(dot);
    std::replace(base.begin(), base.end(), '-', '_');  // the kernel's module names use '_'
    return base;
}

// The symbol table: .symtab has everything; .dynsym only exports (a stripped binary).
struct SymbolTable {
    GElf_Shdr sh{};
    Elf_Data* data = nullptr;
    Elf_Data* xndx = nullptr;  // section indexes past 0xff00 (SHT_SYMTAB_SHNDX), when there are
};

Expected<SymbolTable> find_symbol_table(Elf* elf, const std::string& path) {
    SymbolTable t;
    Elf_Scn* symtab = nullptr;
    size_t symtab_index = 0;
    for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(elf, scn)) != nullptr;) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh)) continue;
        if (sh.sh_type == SHT_SYMTAB || (sh.sh_type == SHT_DYNSYM && !symtab)) {
            symtab = scn;
            t.sh = sh;
            symtab_index = elf_ndxscn(scn);
            if (sh.sh_type == SHT_SYMTAB) break;
        }
    }
    if (!symtab) return Error(Errc::not_found, "no symbol table (.symtab or .dynsym)").in_file(path);
    for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(elf, scn)) != nullptr;) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB_SHNDX && sh.sh_link == symtab_index)
            t.xndx = elf_getdata(scn, nullptr);
    }
    t.data = elf_getdata(symtab, nullptr);
    if (!t.data || t.sh.sh_entsize == 0) return elf_error(Errc::corrupt, path, "unreadable symbol table");
    return t;
}

// Where a symbol of section `shndx` is loaded: a relocatable file's at its section's address
// (none when the section was not loaded), another's moved by the bias.
std::optional<uint64_t> symbol_address(Elf* elf, size_t shstrndx, uint64_t value, size_t shndx,
                                       bool relocatable, const ElfLoadOptions& opts) {
    if (!relocatable) return value + opts.bias;
    if (opts.section_addrs.empty()) return value;
    GElf_Shdr sh;
    Elf_Scn* scn = elf_getscn(elf, shndx);
    const char* sname = scn && gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : nullptr;
    auto it = sname ? opts.section_addrs.find(sname) : opts.section_addrs.end();
    if (it == opts.section_addrs.end()) return std::nullopt;
    return value + it->second;
}

}  // namespace

Expected<std::shared_ptr<const ElfSymbolResolver>> ElfSymbolResolver::open(const std::string& path,
                                                                           const ElfLoadOptions& opts) {
    if (elf_version(EV_CURRENT) == EV_NONE) return elf_error(Errc::unsupported, path, "libelf version");
    ElfFile f;
    f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (f.fd < 0) return Error(Errc::io, std::string("cannot open: ") + std::strerror(errno)).in_file(path);
    f.elf = elf_begin(f.fd, ELF_C_READ_MMAP, nullptr);
    if (!f.elf) return elf_error(Errc::bad_magic, path, "not an ELF file");
    if (elf_kind(f.elf) != ELF_K_ELF) return Error(Errc::bad_magic, "not an ELF file").in_file(path);
    GElf_Ehdr eh;
    if (!gelf_getehdr(f.elf, &eh)) return elf_error(Errc::corrupt, path, "bad ELF header");
    size_t shstrndx = 0;
    if (elf_getshdrstrndx(f.elf, &shstrndx) != 0) return elf_error(Errc::corrupt, path, "no section names");
    const bool relocatable = eh.e_type == ET_REL;

    auto table = find_symbol_table(f.elf, path);
    if (!table) return std::move(table).error();
    const size_t count = table->sh.sh_size / table->sh.sh_entsize;

    std::shared_ptr<ElfSymbolResolver> r(new ElfSymbolResolver());
    r->path_ = path;
    if (!opts.module.empty())
        r->module_ = opts.module;
    else if (relocatable) {
        r->module_ = modinfo_name(f.elf, shstrndx);
        if (r->module_.empty()) r->module_ = module_from_path(path);
    }

    std::vector<std::pair<Entry, uint32_t>> all;  // entry, table index (tie-break)
    all.reserve(count);
    for (size_t i = 1; i < count; ++i) {
        GElf_Sym sym;
        Elf32_Word ext = 0;
        if (!gelf_getsymshndx(table->data, table->xndx, static_cast<int>(i), &sym, &ext)) continue;
        const int type = GELF_ST_TYPE(sym.st_info);
        if (type != STT_FUNC && type != STT_OBJECT && type != STT_NOTYPE) continue;
        size_t shndx = sym.st_shndx == SHN_XINDEX ? ext : sym.st_shndx;
        if (shndx == SHN_UNDEF || (shndx >= SHN_LORESERVE && sym.st_shndx != SHN_XINDEX)) continue;
        const char* name = elf_strptr(f.elf, table->sh.sh_link, sym.st_name);
        if (!name || !*name || name[0] == '$') continue;

        const auto start = symbol_address(f.elf, shstrndx, sym.st_value, shndx, relocatable, opts);
        if (!start) continue;  // in a section that was not loaded
        const int bind = GELF_ST_BIND(sym.st_info);
        uint32_t bind_rank = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : bind == STB_LOCAL ? 2 : 3;
        Entry e{};
        e.start = *start;
        e.size = sym.st_size;
        e.name_off = static_cast<uint32_t>(r->names_.size());
        e.name_len = static_cast<uint32_t>(std::strlen(name));
        r->names_.append(name, e.name_len);
        e.rank = (sym.st_size == 0 ? 4u : 0u) + bind_rank;
        all.emplace_back(e, static_cast<uint32_t>(i));
    }
    std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
        if (a.first.start != b.first.start) return a.first.start < b.first.start;
        if (a.first.rank != b.first.rank) return a.first.rank < b.first.rank;
        return a.second < b.second;
    });
    r->entries_.reserve(all.size());
    for (const auto& [e, idx] : all)
        if (r->entries_.empty() || r->entries_.back().start != e.start) r->entries_.push_back(e);
    return std::shared_ptr<const ElfSymbolResolver>(std::move(r));
}

std::optional<Symbol> ElfSymbolResolver::lookup(uint64_t addr) const {
    auto it = std::upper_bound(entries_.begin(), entries_.end(), addr,
                               [](uint64_t a, const Entry& e) { return a < e.start; });
    if (it == entries_.begin()) return std::nullopt;
    const Entry& e = *(it - 1);
    if (e.size ? addr - e.start >= e.size : (it == entries_.end() && addr != e.start)) return std::nullopt;
    Symbol s;
    s.name = std::string_view(names_).substr(e.name_off, e.name_len);
    s.start = e.start;
    s.size = e.size;
    s.module = module_;
    return s;
}

std::string ElfSymbolResolver::describe() const {
    std::string d = "elf:" + path_;
    if (!module_.empty()) d += " [" + module_ + "]";
    return d + " (" + std::to_string(entries_.size()) + " symbols)";
}

}  // namespace ringscope::symbols
