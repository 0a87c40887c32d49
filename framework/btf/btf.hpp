// BTF (docs.kernel.org/bpf/btf.html), the kernel's type information as /sys/kernel/btf/vmlinux
// holds it and trace-cmd 3.4 stores it (BTF_FILE): enough of it to print a traced function's
// arguments by name and type as libtraceevent 1.9 does (trace-btf.c, tep_btf_print_args).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <ringscope/error.hpp>
#include <ringscope/text_buffer.hpp>

namespace ringscope::btf {

// BTF_KIND_*: bits 24-28 of a type's info word.
enum Kind : uint32_t {
    kUnknown = 0,
    kInt = 1,
    kPtr = 2,
    kArray = 3,
    kStruct = 4,
    kUnion = 5,
    kEnum = 6,
    kFwd = 7,
    kTypedef = 8,
    kVolatile = 9,
    kConst = 10,
    kRestrict = 11,
    kFunc = 12,
    kFuncProto = 13,
    kVar = 14,
    kDatasec = 15,
    kFloat = 16,
    kDeclTag = 17,
    kTypeTag = 18,
    kEnum64 = 19,
};

class Btf {
  public:
    // The blob as stored. It must be in the host's byte order, as libtraceevent requires (a
    // byte-swapped blob is refused). Errors (Errc::corrupt, with the byte offset in the blob):
    // a bad magic or header, a type area past the blob, a type of an unknown kind (libtraceevent
    // gives up on the whole blob for each of these).
    static Expected<Btf> parse(std::string blob);

    size_t type_count() const noexcept { return types_.size(); }
    size_t function_count() const noexcept { return funcs_.size(); }

    // tep_btf_print_args: ARGS holds COUNT values of SIZE bytes (4 or 8, host order). FUNC's
    // parameters as "name=value, ..." (a ".isra.0"-style suffix is tried without); for a function
    // BTF does not know, the values in hex without 0x. False (nothing printed) for a SIZE other
    // than 4 or 8 or a FUNC whose BTF entry is not a function with a prototype.
    bool print_args(std::span<const uint8_t> args, size_t count, int size, std::string_view func,
                    TextBuffer& out) const;
    // The same without BTF: the values in hex, ", " between them.
    static void print_raw_args(std::span<const uint8_t> args, size_t count, int size, TextBuffer& out);

  private:
    struct Type {
        uint32_t offset;  // of its btf_type in blob_
        uint32_t name_off;
        uint32_t info;
        uint32_t size_type;
    };
    std::string_view name(uint32_t off) const;
    const Type* type(uint32_t id) const;
    // Follows typedefs, const, volatile, restrict and type tags; null at an id that is no type.
    const Type* skip_modifiers(uint32_t id) const;
    const Type* find_func(std::string_view name) const;
    uint32_t u32_at(size_t off) const;

    std::string blob_;
    size_t strings_ = 0;           // where the string area starts in blob_
    uint32_t str_len_ = 0;         // its length as the header says
    std::vector<Type> types_;      // id 1 first
    std::vector<uint32_t> funcs_;  // indexes into types_ of the FUNCs, by name
};

}  // namespace ringscope::btf
