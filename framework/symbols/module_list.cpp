#include "framework/symbols/module_list.hpp"

#include <algorithm>
#include <charconv>
#include <optional>

#include "framework/symbols/section_text.hpp"

namespace ringscope::symbols {

using section_text::error_at;

Expected<ModuleList> ModuleList::parse(std::string_view text) {
    ModuleList list;
    std::optional<Error> error;
    section_text::for_each_line(text, [&](std::string_view line, int number) {
        if (error) return;
        const auto f = section_text::split_fields(line);
        if (f.empty()) return;
        if (f.size() < 6) {
            error = error_at(number, line.size(),
                             "a module line has 6 fields (name size refcount deps state address)");
            return;
        }
        uint64_t size = 0;
        const auto [end, ec] = std::from_chars(f[1].text.data(), f[1].text.data() + f[1].text.size(), size);
        if (ec != std::errc() || end != f[1].text.data() + f[1].text.size()) {
            error =
                error_at(number, f[1].column, "module size '" + std::string(f[1].text) + "' is not a number");
            return;
        }
        const auto addr = section_text::parse_hex(f[5].text);
        if (!addr) {
            error =
                error_at(number, f[5].column, "module address '" + std::string(f[5].text) + "' is not hex");
            return;
        }
        if (*addr == 0) return;  // hidden by kptr_restrict: says nothing of where it lies
        std::string name(f[0].text);
        list.modules_.push_back({name, "[" + name + "]", *addr, size});
    });
    if (error) return std::move(*error);
    std::sort(list.modules_.begin(), list.modules_.end(),
              [](const LoadedModule& a, const LoadedModule& b) { return a.address < b.address; });
    return list;
}

const LoadedModule* ModuleList::find(uint64_t addr) const noexcept {
    auto it = std::upper_bound(modules_.begin(), modules_.end(), addr,
                               [](uint64_t a, const LoadedModule& m) { return a < m.address; });
    if (it == modules_.begin()) return nullptr;
    --it;
    return addr - it->address < it->size ? &*it : nullptr;
}

const LoadedModule* ModuleList::by_name(std::string_view name) const noexcept {
    for (const auto& m : modules_)
        if (m.name == name) return &m;
    return nullptr;
}

}  // namespace ringscope::symbols
