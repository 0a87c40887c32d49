#include "framework/btf/btf.hpp"

#include <algorithm>
#include <cstring>

namespace ringscope::btf {
namespace {

constexpr uint16_t kMagic = 0xeb9f;
constexpr uint32_t kHeaderSize = 24;  // struct btf_header
constexpr uint32_t kTypeSize = 12;    // struct btf_type

// libtraceevent's names of the kinds (the kernel's), printed for arguments it cannot decode.
constexpr const char* kKindNames[] = {"UNKNOWN", "INT",      "PTR",      "ARRAY",      "STRUCT",
                                      "UNION",   "ENUM",     "FWD",      "TYPEDEF",    "VOLATILE",
                                      "CONST",   "RESTRICT", "FUNC",     "FUNC_PROTO", "VAR",
                                      "DATASEC", "FLOAT",    "DECL_TAG", "TYPE_TAG",   "ENUM64"};

uint32_t kind_of(uint32_t info) {
    return (info >> 24) & 0x1f;
}
uint32_t vlen_of(uint32_t info) {
    return info & 0xffff;
}

// Bytes after the btf_type of each kind; -1 for a kind this format revision does not have.
int64_t extra_size(uint32_t info) {
    const int64_t vlen = vlen_of(info);
    switch (kind_of(info)) {
        case kInt:
        case kVar:
        case kDeclTag:
            return 4;
        case kArray:
            return 12;
        case kEnum:
        case kFuncProto:
            return 8 * vlen;
        case kStruct:
        case kUnion:
        case kDatasec:
        case kEnum64:
            return 12 * vlen;
        case kPtr:
        case kFwd:
        case kTypedef:
        case kVolatile:
        case kConst:
        case kRestrict:
        case kTypeTag:
        case kFunc:
        case kFloat:
            return 0;
        default:
            return -1;
    }
}

uint32_t load32(const std::string& b, size_t off) {
    uint32_t v;
    std::memcpy(&v, b.data() + off, 4);
    return v;
}

uint64_t arg_at(std::span<const uint8_t> args, int size, size_t i) {
    if (size == 4) {
        uint32_t v;
        std::memcpy(&v, args.data() + i * 4, 4);
        return v;
    }
    uint64_t v;
    std::memcpy(&v, args.data() + i * 8, 8);
    return v;
}

Error corrupt(const std::string& what, size_t off) {
    return Error(Errc::corrupt, "BTF: " + what).at_offset(static_cast<int64_t>(off));
}

}  // namespace

Expected<Btf> Btf::parse(std::string blob) {
    if (blob.size() < kHeaderSize) return corrupt("shorter than its header", 0);
    uint16_t magic;
    std::memcpy(&magic, blob.data(), 2);
    if (magic != kMagic) {
        return corrupt(magic == 0x9feb ? "byte order is not this machine's" : "bad magic", 0);
    }
    const uint32_t hdr_len = load32(blob, 4), type_off = load32(blob, 8), type_len = load32(blob, 12),
                   str_off = load32(blob, 16), str_len = load32(blob, 20);
    if (hdr_len < kHeaderSize || hdr_len > blob.size()) return corrupt("bad header length", 4);
    const uint64_t types_begin = uint64_t{hdr_len} + type_off, types_end = types_begin + type_len;
    if (types_end > blob.size()) return corrupt("type area runs past the end", 8);
    if (uint64_t{hdr_len} + str_off > blob.size()) return corrupt("string area past the end", 16);

    Btf b;
    b.strings_ = hdr_len + size_t{str_off};
    b.str_len_ = str_len;
    for (uint64_t off = types_begin; off < types_end;) {
        if (types_end - off < kTypeSize) return corrupt("type cut short", off);
        Type t{static_cast<uint32_t>(off), load32(blob, off), load32(blob, off + 4), load32(blob, off + 8)};
        const int64_t extra = extra_size(t.info);
        if (extra < 0) return corrupt("type of unknown kind " + std::to_string(kind_of(t.info)), off);
        if (types_end - off - kTypeSize < static_cast<uint64_t>(extra)) return corrupt("type cut short", off);
        if (kind_of(t.info) == kFunc) b.funcs_.push_back(static_cast<uint32_t>(b.types_.size()));
        b.types_.push_back(t);
        off += kTypeSize + static_cast<uint64_t>(extra);
    }
    b.blob_ = std::move(blob);
    // libtraceevent sorts by name with qsort and finds with bsearch: of several functions with
    // one name (static ones in different files) it takes any; this takes the first in the blob.
    std::stable_sort(b.funcs_.begin(), b.funcs_.end(), [&b](uint32_t x, uint32_t y) {
        return b.name(b.types_[x].name_off) < b.name(b.types_[y].name_off);
    });
    return b;
}

uint32_t Btf::u32_at(size_t off) const {
    return off + 4 <= blob_.size() ? load32(blob_, off) : 0;
}

std::string_view Btf::name(uint32_t off) const {
    if (off >= str_len_ || strings_ + off >= blob_.size()) return {};
    const char* p = blob_.data() + strings_ + off;
    return {p, strnlen(p, blob_.size() - strings_ - off)};
}

const Btf::Type* Btf::type(uint32_t id) const {
    if (id == 0 || id > types_.size()) return nullptr;
    return &types_[id - 1];
}

const Btf::Type* Btf::skip_modifiers(uint32_t id) const {
    const Type* t = type(id);
    // A loop of typedefs hangs libtraceevent; here it ends as an unknown type.
    for (int hops = 0; t && hops < 64; ++hops) {
        switch (kind_of(t->info)) {
            case kTypedef:
            case kVolatile:
            case kConst:
            case kRestrict:
            case kTypeTag:
                t = type(t->size_type);
                continue;
            default:
                return t;
        }
    }
    return nullptr;
}

const Btf::Type* Btf::find_func(std::string_view fname) const {
    auto it = std::lower_bound(funcs_.begin(), funcs_.end(), fname, [this](uint32_t i, std::string_view n) {
        return name(types_[i].name_off) < n;
    });
    if (it == funcs_.end() || name(types_[*it].name_off) != fname) return nullptr;
    return &types_[*it];
}

void Btf::print_raw_args(std::span<const uint8_t> args, size_t count, int size, TextBuffer& out) {
    for (size_t i = 0; i < count; ++i) {
        out.appendf("%llx", static_cast<unsigned long long>(arg_at(args, size, i)));
        if (i + 1 < count) out.append(", ");
    }
}

bool Btf::print_args(std::span<const uint8_t> args, size_t count, int size, std::string_view func,
                     TextBuffer& out) const {
    if (func.empty() || (size != 4 && size != 8)) return false;
    count = std::min(count, args.size() / static_cast<size_t>(size));
    const Type* fn = find_func(func);
    // "name.isra.0", "name.constprop.0": the compiler's copies of a function BTF knows by name.
    if (!fn && func.find('.') != std::string_view::npos) fn = find_func(func.substr(0, func.find('.')));
    if (!fn) {
        print_raw_args(args, count, size, out);
        return true;
    }
    const Type* proto = type(fn->size_type);
    if (!proto) return true;  // no prototype: nothing to print
    if (kind_of(proto->info) != kFuncProto) return false;
    const uint32_t nr = vlen_of(proto->info);
    const size_t params = size_t{proto->offset} + kTypeSize;
    size_t a = 0;
    for (uint32_t p = 0; p < nr; ++a, ++p) {
        if (p) out.append(", ");
        if (a == count) {
            out.append("...");
            break;
        }
        uint64_t arg = arg_at(args, size, a);
        const uint32_t pname = u32_at(params + size_t{p} * 8), ptype = u32_at(params + size_t{p} * 8 + 4);
        out.append(name(pname));
        out.push_back('=');
        if (!ptype) continue;  // "..." of a variadic function: the name only
        const Type* t = skip_modifiers(ptype);
        const uint32_t kind = t ? kind_of(t->info) : kUnknown;
        switch (kind) {
            case kUnknown:
                out.push_back('?');
                [[fallthrough]];
            case kPtr:
                out.appendf("0x%llx", static_cast<unsigned long long>(arg));
                break;
            case kInt: {
                const uint32_t enc = u32_at(size_t{t->offset} + kTypeSize);
                const uint32_t bits = enc & 0xff, shift = (enc >> 16) & 0xff;
                arg = shift < 64 ? arg >> shift : 0;
                if (bits < 64) arg &= (uint64_t{1} << bits) - 1;
                // Signed values print from the masked bits: -1 in an int prints 4294967295.
                if ((enc >> 24) & 1)
                    out.appendf("%lld", static_cast<long long>(arg));
                else
                    out.appendf("0x%llx", static_cast<unsigned long long>(arg));
                break;
            }
            case kEnum:
                out.appendf("%lld", static_cast<long long>(arg));
                break;
            default:
                // Structs and the like: the words they take, ':' between them.
                out.appendf("(%s)[0x%llx", kKindNames[kind], static_cast<unsigned long long>(arg));
                for (uint64_t x = 8; x < t->size_type; x += 8) {
                    out.push_back(':');
                    if (++a == count) {
                        out.append("...]");
                        return true;
                    }
                    out.appendf("0x%llx", static_cast<unsigned long long>(arg_at(args, size, a)));
                }
                out.push_back(']');
                break;
        }
    }
    return true;
}

}  // namespace ringscope::btf
