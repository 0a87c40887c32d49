// Small BTF blobs for tests, laid out as the kernel writes /sys/kernel/btf/vmlinux (header, types,
// strings; host byte order), one type at a time.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "framework/btf/btf.hpp"

namespace btf_test {

using namespace ringscope::btf;

class BtfBuilder {
  public:
    BtfBuilder() { strings_.push_back('\0'); }

    uint32_t str(std::string_view s) {
        if (s.empty()) return 0;
        const auto off = static_cast<uint32_t>(strings_.size());
        strings_.append(s);
        strings_.push_back('\0');
        return off;
    }
    // A btf_type and the words after it; its id.
    uint32_t add(std::string_view name, uint32_t kind, uint32_t vlen, uint32_t size_type,
                 const std::vector<uint32_t>& extra = {}) {
        put(str(name));
        put(kind << 24 | vlen);
        put(size_type);
        for (uint32_t w : extra) put(w);
        return ++count_;
    }
    uint32_t int_type(std::string_view name, uint32_t bits, bool is_signed, uint32_t bit_offset = 0,
                      uint32_t encoding_extra = 0) {
        const uint32_t enc = (is_signed ? 1u : 0u) | encoding_extra;
        return add(name, kInt, 0, (bits + 7) / 8, {enc << 24 | bit_offset << 16 | bits});
    }
    uint32_t ptr(uint32_t to) { return add("", kPtr, 0, to); }
    uint32_t typedef_(std::string_view name, uint32_t to) { return add(name, kTypedef, 0, to); }
    uint32_t const_(uint32_t to) { return add("", kConst, 0, to); }
    uint32_t struct_(std::string_view name, uint32_t size) { return add(name, kStruct, 0, size); }
    uint32_t enum_(std::string_view name) { return add(name, kEnum, 0, 4); }
    uint32_t proto(uint32_t ret, const std::vector<std::pair<std::string, uint32_t>>& params) {
        std::vector<uint32_t> extra;
        for (const auto& [n, t] : params) {
            extra.push_back(str(n));
            extra.push_back(t);
        }
        return add("", kFuncProto, static_cast<uint32_t>(params.size()), ret, extra);
    }
    uint32_t func(std::string_view name, uint32_t proto_id) { return add(name, kFunc, 0, proto_id); }

    std::string blob() const {
        std::string b;
        auto u16 = [&b](uint16_t v) { b.append(reinterpret_cast<const char*>(&v), 2); };
        auto u32 = [&b](uint32_t v) { b.append(reinterpret_cast<const char*>(&v), 4); };
        u16(0xeb9f);
        b.push_back(1);  // version
        b.push_back(0);  // flags
        u32(24);         // hdr_len
        u32(0);          // type_off
        u32(static_cast<uint32_t>(types_.size()));
        u32(static_cast<uint32_t>(types_.size()));  // str_off
        u32(static_cast<uint32_t>(strings_.size()));
        b += types_;
        b += strings_;
        return b;
    }

  private:
    void put(uint32_t v) { types_.append(reinterpret_cast<const char*>(&v), 4); }
    std::string types_, strings_;
    uint32_t count_ = 0;
};

}  // namespace btf_test
