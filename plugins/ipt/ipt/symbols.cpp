#include "ipt/symbols.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "ipt/image.hpp"

namespace ringscope::ipt {

Status Symbols::load_kallsyms(const std::string& path) {
    std::ifstream in(path);
    if (!in) return Error(Errc::io, "cannot open").in_file(path);
    std::string line;
    for (size_t number = 1; std::getline(in, line); ++number) {
        std::istringstream words(line);
        std::string address, second, third;
        words >> address >> second >> third;
        if (address.empty()) continue;
        uint64_t value = 0;
        if (!parse_number("0x" + address, value) || second.empty())
            return Error(Errc::parse, "not ADDR [TYPE] NAME").in_file(path).at_line(static_cast<int>(number));
        if (third.empty()) {
            add(value, second);
        } else if (second == "t" || second == "T") {
            add(value, third);
        }
    }
    if (in.bad()) return Error(Errc::io, "read error").in_file(path);
    return {};
}

void Symbols::add(uint64_t address, std::string name) {
    if (!entries_.empty() && address < entries_.back().address) sorted_ = false;
    entries_.push_back({address, std::move(name)});
    if (!sorted_) sort();
}

void Symbols::sort() {
    std::stable_sort(entries_.begin(), entries_.end(),
                     [](const Entry& a, const Entry& b) { return a.address < b.address; });
    sorted_ = true;
}

int Symbols::find(uint64_t address) const noexcept {
    auto it = std::upper_bound(entries_.begin(), entries_.end(), address,
                               [](uint64_t a, const Entry& e) { return a < e.address; });
    if (it == entries_.begin()) return -1;
    return static_cast<int>(it - entries_.begin()) - 1;
}

const std::string& Symbols::name(int index) const noexcept {
    static const std::string unknown = "[unknown]";
    return index < 0 ? unknown : entries_[static_cast<size_t>(index)].name;
}

}  // namespace ringscope::ipt
