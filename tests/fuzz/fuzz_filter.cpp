// Filter strings compiled against real event formats and run on a payload.
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <ringscope/filter.hpp>

#include "tests/fuzz/fuzz_context.hpp"

using namespace ringscope;

namespace {

format::FormatCatalog& catalog() {
    static format::FormatCatalog* c = [] {
        auto* cat = new format::FormatCatalog(8, false);
        for (const char* f : {"sched/sched_switch", "sched/sched_wakeup", "irq/irq_handler_entry", "kmem/kmalloc"}) {
            std::ifstream in(std::string(RINGSCOPE_TEST_DATA_DIR) + "/formats/" + f + "/format");
            std::stringstream ss;
            ss << in.rdbuf();
            std::string sys(f, std::strchr(f, '/'));
            (void)cat->add_format(ss.str(), sys);
        }
        return cat;
    }();
    return *c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const uint8_t* nul = static_cast<const uint8_t*>(std::memchr(data, 0, size));
    size_t text_len = nul ? static_cast<size_t>(nul - data) : size;
    std::string_view text(reinterpret_cast<const char*>(data), text_len);
    std::vector<uint8_t> payload(nul ? nul + 1 : data + size, data + size);
    payload.resize(std::max<size_t>(payload.size(), 64));

    auto& cat = catalog();
    std::vector<const EventType*> types = cat.types();
    auto filter = EventFilter::parse(text, types);
    if (!filter) return 0;
    fuzz::FuzzContext ctx(cat);
    for (const EventType* t : types) {
        uint16_t id = static_cast<uint16_t>(t->id);
        std::memcpy(payload.data(), &id, 2);
        Event ev(t, &ctx, payload, 1, 0);
        (void)filter->test(ev);
    }
    return 0;
}
