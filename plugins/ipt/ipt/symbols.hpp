// Function names for code addresses: from a file in /proc/kallsyms' format (`ADDR TYPE NAME
// [MODULE]` a line; `ADDR NAME` too), from ELF function symbols, or from the kallsyms a trace.dat
// carries (through the trace's resolver service, with libtraceevent's look-up rules). An address
// belongs to the symbol at or below it. Only text symbols (type t or T) are kept from a kallsyms
// file when types are given.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <ringscope/error.hpp>

namespace ringscope {
class Trace;
}

namespace ringscope::ipt {

class Symbols {
  public:
    Symbols();
    ~Symbols();
    Symbols(const Symbols&) = delete;
    Symbols& operator=(const Symbols&) = delete;

    // A trace.dat (by its magic) is opened for its kallsyms, anything else read as kallsyms
    // text. A line that does not parse is an error naming the file and the line.
    Status load_kallsyms(const std::string& path);
    void add(uint64_t address, std::string name);

    // The index of the symbol at or below address, or -1. A trace.dat's kallsyms are asked
    // first, then the symbols added.
    int find(uint64_t address) const;
    const std::string& name(int index) const noexcept;
    size_t size() const noexcept { return entries_.size(); }

  private:
    struct Entry {
        uint64_t address;
        std::string name;
    };
    Status load_trace(const std::string& path);
    int find_added(uint64_t address) const;
    // Added symbols are sorted on the first look-up after them (ELF tables are in no order).
    void sort() const;
    mutable std::vector<Entry> entries_;
    mutable bool sorted_ = true;
    // The trace.dat whose kernel resolver names addresses, and the names it gave, by symbol
    // start (indexes from kTraceIndex on).
    static constexpr int kTraceIndex = 1 << 30;
    std::unique_ptr<Trace> trace_;
    mutable std::unordered_map<uint64_t, int> by_start_;
    mutable std::vector<std::string> trace_names_;
};

}  // namespace ringscope::ipt
