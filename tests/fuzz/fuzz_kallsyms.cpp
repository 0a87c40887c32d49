// kallsyms text: parse, then look up addresses taken from the input.
#include <cstdint>
#include <cstring>
#include <string_view>

#include "framework/symbols/kallsyms_resolver.hpp"

using namespace ringscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    auto r = symbols::KallsymsResolver::parse(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
    if (!r) return 0;
    for (size_t i = 0; i + 8 <= size && i < 512; i += 8) {
        uint64_t addr;
        std::memcpy(&addr, data + i, 8);
        if (auto s = (*r)->lookup(addr)) (void)ResolverService::format(*s, addr);
    }
    return 0;
}
