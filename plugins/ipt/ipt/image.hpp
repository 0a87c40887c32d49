// The code an Intel PT trace ran: sections of bytes at addresses, from raw files (ptxed's
// `--raw FILE[:OFF[-END]]:ADDR`) and the loadable segments of ELF files (`--elf FILE[:BASE]`).
// Where sections overlap, the one added last is read (libipt's image replaces what a new section
// covers).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <ringscope/error.hpp>

#include "ipt/trace_file.hpp"

namespace ringscope::ipt {

// A number as ptxed reads its arguments (strtoull, base 0: 0x.. hex, 0.. octal); false when text
// is not one.
bool parse_number(const std::string& text, uint64_t& out);

class Image {
  public:
    // Bytes [offset, offset + size) of path (size 0: to the end of the file) at address.
    Status add_raw(const std::string& path, uint64_t offset, uint64_t size, uint64_t address);
    // The PT_LOAD segments of an ELF file (their file bytes) at their addresses; with a base, all
    // of them moved so that the lowest lands at base. With functions: also the file's function
    // symbols (.symtab, else .dynsym), moved as the segments are.
    struct Function {
        uint64_t address;
        std::string name;
    };
    Status add_elf(const std::string& path, bool have_base, uint64_t base,
                   std::vector<Function>* functions = nullptr);
    // A copy of bytes at address (tests).
    void add_bytes(const uint8_t* data, size_t size, uint64_t address, std::string name);

    // Up to n bytes from address on, across adjacent sections: the count read, or -pte_nomap when
    // nothing is mapped at address. *isid (if given) gets the section of the first byte (1, 2, ...).
    int read(uint64_t address, uint8_t* out, size_t n, int* isid = nullptr) const noexcept;
    bool empty() const noexcept { return sections_.empty(); }

    // ptxed's `FILE[:OFF[-END]]:ADDR` (-pte_invalid when it does not parse).
    static Status parse_raw(const std::string& arg, std::string& path, uint64_t& offset, uint64_t& size,
                            uint64_t& address);

  private:
    struct Section {
        std::shared_ptr<const TraceBytes> bytes;
        const uint8_t* data;
        uint64_t size;
        uint64_t address;
        std::string name;
    };
    // The section added last that holds address, or nullptr.
    const Section* find(uint64_t address) const noexcept;
    std::vector<Section> sections_;
};

}  // namespace ringscope::ipt
