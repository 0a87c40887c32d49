// Function names for code addresses, from a file in /proc/kallsyms' format (`ADDR TYPE NAME
// [MODULE]` a line; `ADDR NAME` too): an address belongs to the symbol at or below it. Only text
// symbols (type t or T) are kept when types are given.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <ringscope/error.hpp>

namespace ringscope::ipt {

class Symbols {
  public:
    // A line that does not parse is an error naming the file and the line.
    Status load_kallsyms(const std::string& path);
    void add(uint64_t address, std::string name);

    // The index of the symbol at or below address, or -1.
    int find(uint64_t address) const noexcept;
    const std::string& name(int index) const noexcept;
    size_t size() const noexcept { return entries_.size(); }

  private:
    struct Entry {
        uint64_t address;
        std::string name;
    };
    void sort();
    std::vector<Entry> entries_;
    bool sorted_ = true;
};

}  // namespace ringscope::ipt
