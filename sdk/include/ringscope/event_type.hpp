// The description of one event type, as the kernel's `format` file gives it: id, system, name,
// fields with their layout, and the print fmt. Pure data; the framework parses and owns these.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ringscope {

enum FieldFlag : uint32_t {
    kFieldSigned = 1u << 0,
    kFieldArray = 1u << 1,    // fixed-size array: type[N]
    kFieldDynamic = 1u << 2,  // __data_loc: u32 = (len << 16) | offset from record start
    kFieldRelLoc = 1u << 3,   // __rel_loc: u32 = (len << 16) | offset from the end of the field
    kFieldString = 1u << 4,   // char array / char string
    kFieldPointer = 1u << 5,  // a pointer type (printed as an address)
    kFieldLong = 1u << 6,     // C long/unsigned long (size follows the trace's long size)
};

struct FieldInfo {
    std::string name;
    std::string type;       // as written in the format file, e.g. "unsigned long", "char[16]"
    uint32_t offset = 0;    // from the start of the record payload (common fields included)
    uint32_t size = 0;      // bytes: whole array for arrays, 4 for __data_loc/__rel_loc words
    uint32_t elem_size = 0; // array element size (size for scalars)
    uint32_t array_len = 0; // N for type[N], 0 otherwise
    uint32_t flags = 0;     // FieldFlag bits

    bool is_signed() const noexcept { return flags & kFieldSigned; }
    bool is_dynamic() const noexcept { return flags & (kFieldDynamic | kFieldRelLoc); }
    bool is_string() const noexcept { return flags & kFieldString; }
};

// A field looked up once, used per event: the fast path of field access.
struct FieldHandle {
    uint32_t offset = 0;
    uint32_t size = 0;
    uint32_t flags = 0;
    bool found = false;

    explicit operator bool() const noexcept { return found; }
};

// A value table that the print fmt declares for a field with __print_symbolic or __print_flags.
// Plugins take names from here (the kernel's own, always current) before any built-in table.
struct ValueTable {
    std::string field;   // the field the table is applied to (REC->field), may be an expression text
    bool is_flags = false;
    std::string delimiter;  // for __print_flags
    std::vector<std::pair<uint64_t, std::string>> entries;
};

class EventType {
public:
    uint32_t id = 0;
    std::string system;
    std::string name;
    std::vector<FieldInfo> common_fields;
    std::vector<FieldInfo> fields;
    std::string print_fmt;          // the text after "print fmt: "
    std::vector<ValueTable> tables; // filled by the print fmt parser
    FieldHandle pid_field;          // common_pid, set by finalize()

    // Caches the handles the hot path needs; call after the fields are filled in.
    void finalize() noexcept { pid_field = handle("common_pid"); }

    // Looks in fields, then in common fields; nullptr when absent.
    const FieldInfo* find_field(std::string_view field_name) const noexcept {
        for (const auto& f : fields)
            if (f.name == field_name) return &f;
        for (const auto& f : common_fields)
            if (f.name == field_name) return &f;
        return nullptr;
    }
    FieldHandle handle(std::string_view field_name) const noexcept {
        const FieldInfo* f = find_field(field_name);
        if (!f) return {};
        return FieldHandle{f->offset, f->size, f->flags, true};
    }
    const ValueTable* table_for(std::string_view field_name, bool flags) const noexcept {
        for (const auto& t : tables)
            if (t.is_flags == flags && t.field == field_name) return &t;
        return nullptr;
    }
};

}  // namespace ringscope
