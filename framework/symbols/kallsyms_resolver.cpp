#include "framework/symbols/kallsyms_resolver.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <sstream>

namespace ringscope::symbols {
namespace {

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

// A hex digit's value, 16 for any other byte: one load per digit in the address loop.
constexpr std::array<uint8_t, 256> kHexValue = [] {
    std::array<uint8_t, 256> t{};
    t.fill(16);
    for (int c = '0'; c <= '9'; ++c) t[static_cast<size_t>(c)] = static_cast<uint8_t>(c - '0');
    for (int c = 'a'; c <= 'f'; ++c) t[static_cast<size_t>(c)] = static_cast<uint8_t>(c - 'a' + 10);
    for (int c = 'A'; c <= 'F'; ++c) t[static_cast<size_t>(c)] = static_cast<uint8_t>(c - 'A' + 10);
    return t;
}();

uint8_t hex_value(char c) {
    return kHexValue[static_cast<unsigned char>(c)];
}

struct AddrLess {
    bool operator()(const KallsymsResolver::Entry& e, uint64_t a) const noexcept { return e.addr < a; }
    bool operator()(uint64_t a, const KallsymsResolver::Entry& e) const noexcept { return a < e.addr; }
};

Error line_error(const std::string& origin, int line, size_t col, std::string msg) {
    return Error(Errc::parse, std::move(msg)).in_file(origin).at_line(line, static_cast<int>(col + 1));
}

}  // namespace

Expected<std::shared_ptr<const KallsymsResolver>> KallsymsResolver::parse(std::string_view text,
                                                                          std::string origin) {
    auto copy = std::make_shared<const std::string>(text);
    const std::string_view view(*copy);
    return parse(view, std::move(origin), std::move(copy));
}

Expected<std::shared_ptr<const KallsymsResolver>> KallsymsResolver::parse(std::string_view text,
                                                                          std::string origin,
                                                                          std::shared_ptr<const void> owner) {
    std::shared_ptr<KallsymsResolver> r(new KallsymsResolver());
    r->origin_ = std::move(origin);
    if (text.size() > UINT32_MAX) {
        return Error(Errc::unsupported,
                     "kallsyms text of " + std::to_string(text.size()) + " bytes: larger than 4 GiB")
            .in_file(r->origin_);
    }
    r->owner_ = std::move(owner);
    r->text_ = text;
    // A kallsyms line is ~40 bytes; reserving avoids regrowth on a 5 MB file.
    r->entries_.reserve(text.size() / 40 + 1);

    int line_no = 0;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t eol = text.find('\n', pos);
        if (eol == std::string_view::npos) eol = text.size();
        const size_t line_off = pos;
        std::string_view line = text.substr(pos, eol - pos);
        pos = eol + 1;
        ++line_no;
        if (line.empty()) continue;  // libtraceevent's strtok_r never sees empty lines

        // The grammar of libtraceevent's "%16llx %c %n%*s%n%*1[\t][%n%*s%n".
        size_t i = 0;
        while (i < line.size() && is_space(line[i])) ++i;
        if (i == line.size()) continue;  // blank line: nothing to register
        uint64_t addr = 0;
        size_t digits = 0;
        if (line.size() - i > 2 && line[i] == '0' && (line[i + 1] == 'x' || line[i + 1] == 'X') &&
            hex_value(line[i + 2]) < 16)
            i += 2;
        for (uint8_t v; i < line.size() && (v = hex_value(line[i])) < 16; ++i) {
            if (digits == 16) return line_error(r->origin_, line_no, i, "address longer than 16 hex digits");
            addr = (addr << 4) | v;
            ++digits;
        }
        if (digits == 0) return line_error(r->origin_, line_no, i, "expected a hex address");
        while (i < line.size() && is_space(line[i])) ++i;
        if (i == line.size())
            return line_error(r->origin_, line_no, i, "expected a symbol type after the address");
        char type = line[i++];
        while (i < line.size() && is_space(line[i])) ++i;
        size_t name_start = i;
        while (i < line.size() && !is_space(line[i])) ++i;
        if (i == name_start)
            return line_error(r->origin_, line_no, i, "expected a symbol name after the type");
        if (i - name_start > UINT16_MAX)
            return line_error(r->origin_, line_no, name_start, "symbol name longer than 65535 bytes");
        size_t mod_len = 0;
        if (i + 1 < line.size() && line[i] == '\t' && line[i + 1] == '[') {
            size_t me = i + 2;
            while (me < line.size() && !is_space(line[me])) ++me;
            // libtraceevent drops the token's last character, the ']'.
            if (me > i + 2) mod_len = me - (i + 2) - 1;
            if (mod_len > UINT16_MAX)
                return line_error(r->origin_, line_no, i + 2, "module name longer than 65535 bytes");
        }

        // libtraceevent leaves out absolute symbols (x86-64 per-cpu offsets) and ARM's '$a' marks.
        if (type == 'A' || type == 'a' || line[name_start] == '$') {
            ++r->skipped_;
            continue;
        }
        Entry e{};
        e.addr = addr;
        e.name_off = static_cast<uint32_t>(line_off + name_start);
        e.name_len = static_cast<uint16_t>(i - name_start);
        e.mod_len = static_cast<uint16_t>(mod_len);
        e.file_index = static_cast<uint32_t>(r->entries_.size());
        r->entries_.push_back(e);
    }
    r->sort_entries();
    r->build_index();
    return std::shared_ptr<const KallsymsResolver>(std::move(r));
}

void KallsymsResolver::sort_entries() {
    // libtraceevent collects symbols in a prepend list (reverse file order) and sorts it stably by
    // address; its look-up is a bsearch over that array. Ties in the same order keep its picks.
    // kallsyms lists the core image in address order: then only the runs of equal addresses turn
    // round, without a sort.
    const bool by_address = std::is_sorted(entries_.begin(), entries_.end(),
                                           [](const Entry& a, const Entry& b) { return a.addr < b.addr; });
    if (!by_address) {
        std::sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
            return a.addr != b.addr ? a.addr < b.addr : a.file_index > b.file_index;
        });
        return;
    }
    for (size_t i = 0; i < entries_.size();) {
        size_t j = i + 1;
        while (j < entries_.size() && entries_[j].addr == entries_[i].addr) ++j;
        std::reverse(entries_.begin() + static_cast<std::ptrdiff_t>(i),
                     entries_.begin() + static_cast<std::ptrdiff_t>(j));
        i = j;
    }
}

namespace {

// FILE's text, read in pieces (/proc/kallsyms has no size) up to CAP bytes. Kallsyms text holds
// no NUL, so /dev/zero ends at its first byte rather than never.
Status read_kallsyms_text(int fd, size_t cap, std::string& text) {
    char buf[1 << 16];
    for (;;) {
        const ssize_t r = ::read(fd, buf, sizeof buf);
        if (r == 0) return {};
        const auto at = static_cast<int64_t>(text.size());
        if (r < 0) {
            if (errno == EINTR) continue;
            return Error(Errc::io, std::string("read failed: ") + std::strerror(errno)).at_offset(at);
        }
        const size_t n = static_cast<size_t>(r);
        if (const void* nul = std::memchr(buf, '\0', n))
            return Error(Errc::parse, "NUL byte: not a kallsyms text")
                .at_offset(at + (static_cast<const char*>(nul) - buf));
        if (text.size() + n > cap)
            return Error(Errc::io, "more than " + std::to_string(cap >> 20) + " MiB of kallsyms")
                .at_offset(at);
        text.append(buf, n);
    }
}

}  // namespace

Expected<std::shared_ptr<const KallsymsResolver>> KallsymsResolver::load(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Error(Errc::io, std::string("cannot open: ") + std::strerror(errno)).in_file(path);
    auto text = std::make_shared<std::string>();
    Status st = read_kallsyms_text(fd, kMaxFileSize, *text);
    ::close(fd);
    if (!st) return Error(std::move(st).error()).in_file(path);
    const std::string_view view(*text);
    return parse(view, path, std::move(text));
}

Symbol KallsymsResolver::to_symbol(const Entry& e) const noexcept {
    Symbol s;
    s.name = text_.substr(e.name_off, e.name_len);
    s.start = e.addr;
    s.size = 0;
    if (e.mod_len) s.module = text_.substr(e.name_off + e.name_len + 2, e.mod_len);
    return s;
}

size_t KallsymsResolver::reference_bsearch(uint64_t addr) const noexcept {
    // glibc's bsearch with libtraceevent's func_bcmp: an entry matches when addr equals its start, or
    // lies after it and before the next entry's start (the array's end counts as address 0).
    size_t lo = 0, hi = entries_.size();
    while (lo < hi) {
        size_t idx = (lo + hi) / 2;
        uint64_t start = entries_[idx].addr;
        uint64_t next = idx + 1 < entries_.size() ? entries_[idx + 1].addr : 0;
        if (addr == start || (addr > start && addr < next)) return idx;
        if (addr < start)
            hi = idx;
        else
            lo = idx + 1;
    }
    return entries_.size();
}

void KallsymsResolver::build_index() {
    starts_.reserve(entries_.size());
    exact_pick_.reserve(entries_.size());
    inside_pick_.reserve(entries_.size());
    for (size_t i = 0; i < entries_.size();) {
        size_t j = i;
        while (j + 1 < entries_.size() && entries_[j + 1].addr == entries_[i].addr) ++j;
        starts_.push_back(entries_[i].addr);
        // Inside the symbol only the group's last entry matches func_bcmp: the first name in the file.
        inside_pick_.push_back(static_cast<uint32_t>(j));
        // At the start any of the group matches; the reference takes the one its bsearch meets first.
        exact_pick_.push_back(static_cast<uint32_t>(j == i ? i : reference_bsearch(entries_[i].addr)));
        i = j + 1;
    }
}

std::optional<Symbol> KallsymsResolver::lookup(uint64_t addr) const {
    size_t n = starts_.size();
    if (n == 0 || addr < starts_[0]) return std::nullopt;
    // Branch-free search for the last start <= addr.
    const uint64_t* base = starts_.data();
    while (n > 1) {
        size_t half = n / 2;
        base = base[half] <= addr ? base + half : base;
        n -= half;
    }
    size_t g = static_cast<size_t>(base - starts_.data());
    if (addr == *base) return to_symbol(entries_[exact_pick_[g]]);
    // libtraceevent gives the last symbol no end: nothing past its start resolves.
    if (g + 1 == starts_.size()) return std::nullopt;
    return to_symbol(entries_[inside_pick_[g]]);
}

std::vector<Symbol> KallsymsResolver::names_at(uint64_t addr) const {
    auto [first, last] = std::equal_range(entries_.begin(), entries_.end(), addr, AddrLess{});
    std::vector<Symbol> out;
    // Stored in reverse file order: walk backwards for file order.
    for (auto it = last; it != first;) {
        --it;
        out.push_back(to_symbol(*it));
    }
    return out;
}

std::optional<uint64_t> KallsymsResolver::address_of(std::string_view name) const {
    for (const Entry& e : entries_)
        if (text_.substr(e.name_off, e.name_len) == name) return e.addr;
    return std::nullopt;
}

std::string KallsymsResolver::describe() const {
    return "kallsyms:" + origin_ + " (" + std::to_string(entries_.size()) + " symbols)";
}

}  // namespace ringscope::symbols
