#include "ipt/image.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include "ipt/errors.hpp"

namespace ringscope::ipt {
namespace {

struct Fd {
    int fd;
    ~Fd() {
        if (fd >= 0) close(fd);
    }
};

struct ElfHandle {
    Elf* elf;
    ~ElfHandle() {
        if (elf) elf_end(elf);
    }
};

}  // namespace

bool parse_number(const std::string& text, uint64_t& out) {
    if (text.empty() || text[0] == '-') return false;
    char* rest = nullptr;
    errno = 0;
    out = std::strtoull(text.c_str(), &rest, 0);
    return !errno && !*rest;
}

Status Image::parse_raw(const std::string& arg, std::string& path, uint64_t& offset, uint64_t& size,
                        uint64_t& address) {
    size_t colon = arg.rfind(':');
    if (colon == std::string::npos || !parse_number(arg.substr(colon + 1), address))
        return Error(Errc::invalid_argument, "no address in " + arg + " (FILE[:OFF[-END]]:ADDR)");
    path = arg.substr(0, colon);
    offset = size = 0;
    // An optional range before the address; a ':' that does not start one is part of the name.
    size_t range = path.rfind(':');
    if (range == std::string::npos) return Status::success();
    std::string text = path.substr(range + 1);
    size_t dash = text.find('-');
    uint64_t begin = 0, end = 0;
    if (!parse_number(text.substr(0, dash), begin)) return Status::success();
    if (dash != std::string::npos) {
        if (!parse_number(text.substr(dash + 1), end) || end <= begin)
            return Error(Errc::invalid_argument, "bad range in " + arg);
        size = end - begin;
    }
    offset = begin;
    path.resize(range);
    return Status::success();
}

Status Image::add_raw(const std::string& path, uint64_t offset, uint64_t size, uint64_t address) {
    auto bytes = TraceBytes::load(path, offset, size);
    if (!bytes) return std::move(bytes).error();
    if (bytes->size() == 0) return Error(Errc::invalid_argument, "empty section").in_file(path);
    auto shared = std::make_shared<const TraceBytes>(std::move(*bytes));
    sections_.push_back({shared, shared->begin(), shared->size(), address, path});
    return Status::success();
}

void Image::add_bytes(const uint8_t* data, size_t size, uint64_t address, std::string name) {
    auto shared = std::make_shared<const TraceBytes>(TraceBytes::copy(data, size));
    sections_.push_back({shared, shared->begin(), shared->size(), address, std::move(name)});
}

namespace {

// The function symbols of the symbol table of that type, moved by shift: false when there is none.
bool elf_functions(Elf* elf, uint32_t type, uint64_t shift, std::vector<Image::Function>& out) {
    for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || sh.sh_entsize == 0) continue;
        Elf_Data* data = elf_getdata(scn, nullptr);
        if (!data) continue;
        const size_t count = sh.sh_size / sh.sh_entsize;
        for (size_t i = 0; i < count; ++i) {
            GElf_Sym sym;
            if (!gelf_getsym(data, static_cast<int>(i), &sym)) break;
            const unsigned kind = GELF_ST_TYPE(sym.st_info);
            if ((kind != STT_FUNC && kind != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF) continue;
            const char* name = elf_strptr(elf, sh.sh_link, sym.st_name);
            if (name && *name) out.push_back({sym.st_value + shift, name});
        }
        return true;
    }
    return false;
}

}  // namespace

Status Image::add_elf(const std::string& path, bool have_base, uint64_t base,
                      std::vector<Function>* functions) {
    auto file = TraceBytes::load(path);
    if (!file) return std::move(file).error();
    auto shared = std::make_shared<const TraceBytes>(std::move(*file));
    if (elf_version(EV_CURRENT) == EV_NONE)
        return Error(Errc::unsupported, "libelf is too old").in_file(path);
    ElfHandle h{
        elf_memory(const_cast<char*>(reinterpret_cast<const char*>(shared->begin())), shared->size())};
    if (!h.elf || elf_kind(h.elf) != ELF_K_ELF)
        return Error(Errc::bad_magic, "not an ELF file").in_file(path);
    size_t count = 0;
    if (elf_getphdrnum(h.elf, &count) != 0)
        return Error(Errc::corrupt, std::string("no program headers: ") + elf_errmsg(-1)).in_file(path);
    std::vector<GElf_Phdr> loads;
    for (size_t i = 0; i < count; ++i) {
        GElf_Phdr ph;
        if (!gelf_getphdr(h.elf, static_cast<int>(i), &ph))
            return Error(Errc::corrupt, "bad program header " + std::to_string(i)).in_file(path);
        if (ph.p_type != PT_LOAD || ph.p_filesz == 0) continue;
        if (ph.p_offset > shared->size() || shared->size() - ph.p_offset < ph.p_filesz)
            return Error(Errc::corrupt, "segment past the end of the file")
                .in_file(path)
                .at_offset(static_cast<int64_t>(ph.p_offset));
        loads.push_back(ph);
    }
    if (loads.empty()) return Error(Errc::invalid_argument, "no loadable segment").in_file(path);
    uint64_t lowest = loads[0].p_vaddr;
    for (const GElf_Phdr& ph : loads) lowest = std::min<uint64_t>(lowest, ph.p_vaddr);
    const uint64_t shift = have_base ? base - lowest : 0;
    for (const GElf_Phdr& ph : loads)
        sections_.push_back({shared, shared->begin() + ph.p_offset, ph.p_filesz, ph.p_vaddr + shift, path});
    if (functions && !elf_functions(h.elf, SHT_SYMTAB, shift, *functions))
        elf_functions(h.elf, SHT_DYNSYM, shift, *functions);
    return Status::success();
}

const Image::Section* Image::find(uint64_t address) const noexcept {
    for (auto it = sections_.rbegin(); it != sections_.rend(); ++it)
        if (address >= it->address && address - it->address < it->size) return &*it;
    return nullptr;
}

int Image::read(uint64_t address, uint8_t* out, size_t n, int* isid) const noexcept {
    size_t done = 0;
    while (done < n) {
        const Section* s = find(address + done);
        if (!s) break;
        if (done == 0 && isid) *isid = static_cast<int>(s - sections_.data()) + 1;
        const uint64_t at = address + done - s->address;
        size_t take = static_cast<size_t>(std::min<uint64_t>(n - done, s->size - at));
        // A section added later that starts inside the range covers the rest.
        for (const Section* later = s + 1; later < sections_.data() + sections_.size(); ++later)
            if (later->address > address + done && later->address - (address + done) < take)
                take = static_cast<size_t>(later->address - (address + done));
        std::memcpy(out + done, s->data + at, take);
        done += take;
    }
    return done ? static_cast<int>(done) : -pte_nomap;
}

}  // namespace ringscope::ipt
