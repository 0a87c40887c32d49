// A format file (the input up to the first NUL) and a payload (the rest) printed with it.
#include <cstdint>
#include <cstring>
#include <string_view>

#include <ringscope/text_buffer.hpp>

#include "tests/fuzz/fuzz_context.hpp"

using namespace ringscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const uint8_t* nul = static_cast<const uint8_t*>(std::memchr(data, 0, size));
    size_t text_len = nul ? static_cast<size_t>(nul - data) : size;
    std::string_view text(reinterpret_cast<const char*>(data), text_len);
    std::span<const uint8_t> payload;
    if (nul) payload = {nul + 1, size - text_len - 1};

    format::FormatCatalog catalog(8, false);
    auto type = catalog.add_format(text, "fuzz");
    if (!type) return 0;
    fuzz::FuzzContext ctx(catalog);
    Event ev(*type, &ctx, payload, 123456789, 0);
    TextBuffer out;
    catalog.print_info(ev, out);
    catalog.print_raw(ev, out);
    catalog.print_fields(ev, out);
    return 0;
}
