// The ftrace function_graph event formats of several kernels, as their format files read, for
// traces written where the function tracer cannot run. Each is the kernel's own definition
// (kernel/trace/trace_entries.h of that release, laid out by its compiler) or, for 6.18, this
// machine's events/ftrace/*/format; the i386 4.13 one is what a real i386 trace carries (its
// funcgraph_exit lists overrun after rettime, out of offset order).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fgraph_tool {

struct FieldDef {
    std::string decl;  // "unsigned long func", "unsigned long args[]"
    std::string name;
    uint32_t offset = 0;
    uint32_t size = 0;
    bool is_signed = false;
};

struct EventDef {
    std::string name;
    uint32_t id = 0;
    std::vector<FieldDef> fields;  // after the common fields, in the format's order
    std::string print_fmt;         // what follows "print fmt: "
    uint32_t payload_size = 0;     // sizeof the kernel's entry struct (common fields included)

    const FieldDef* field(const std::string& n) const {
        for (const auto& f : fields)
            if (f.name == n) return &f;
        return nullptr;
    }
    // The format file's text.
    std::string text() const;
};

struct Flavour {
    std::string name;  // file name stem: fgraph-NAME.dat
    std::string kernel;
    uint32_t long_size = 8;
    EventDef function, entry, exit;
    std::vector<EventDef> extra;  // fgraph_retaddr_entry where the kernel has it
    bool has_exit = true;         // false: no funcgraph_exit format in the file
    bool big_endian = false;      // the kernel's byte order (records, pages, the file)
};

// i386 4.13, x86_64 4.x, x86_64 5.x (packed), x86_64 6.5 (retval, 6.13's fgraph_retaddr_entry),
// x86_64 6.18 (this machine).
std::vector<Flavour> flavours();

// Big-endian kernels with the formats of i386 4.13 (ppc, 4-byte longs, v6) and x86_64 5.x (ppc64).
std::vector<Flavour> big_endian_flavours();

// Formats no kernel writes, for trace-cmd's complaints: funcgraph_entry without depth and a
// 3-byte calltime ("broken"); no funcgraph_exit at all ("no-exit").
Flavour broken();
Flavour no_exit();

// irq/irq_handler_entry (the interrupt lines nested in a call), as 4.x-6.x kernels define it.
EventDef irq_handler_entry();

// events/header_page for a kernel of LONG_SIZE, and events/header_event.
std::string header_page(uint32_t long_size);
std::string header_event();

}  // namespace fgraph_tool
