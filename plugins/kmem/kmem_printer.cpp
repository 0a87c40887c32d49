#include "kmem_printer.hpp"

#include <ringscope/resolver.hpp>

namespace ringscope::kmem {

std::vector<EventMatch> KmemPrinter::subscriptions() const {
    return {{"kmem", "kfree"},
            {"kmem", "kmalloc"},
            {"kmem", "kmalloc_node"},
            {"kmem", "kmem_cache_alloc"},
            {"kmem", "kmem_cache_alloc_node"},
            {"kmem", "kmem_cache_free"}};
}

bool KmemPrinter::print(const Event& ev, PrintContext& pc, TextBuffer& out) {
    auto it = call_site_.find(ev.type_ptr());
    if (it == call_site_.end()) {
        // tep_find_field: the event's own fields, not the common ones.
        FieldHandle h;
        for (const auto& f : ev.type().fields)
            if (f.name == "call_site") h = FieldHandle{f.offset, f.size, f.flags, true};
        it = call_site_.emplace(ev.type_ptr(), h).first;
    }
    const FieldHandle& h = it->second;
    // tep_read_number_field reads only 1/2/4/8-byte fields.
    if (h && (h.size == 1 || h.size == 2 || h.size == 4 || h.size == 8)) {
        const uint64_t val = ev.u64(h);
        if (auto sym = ev.context().resolvers().lookup(kKernelDomain, val)) {
            out.push_back('(');
            out.append(sym->name);
            out.appendf("+0x%x) ", static_cast<unsigned>(static_cast<int>(val - sym->start)));
        }
    }
    pc.print_default(ev, out);
    return true;
}

}  // namespace ringscope::kmem
