// libtraceevent 1.7.1's kmem plugin: kfree, kmalloc, kmalloc_node, kmem_cache_alloc,
// kmem_cache_alloc_node and kmem_cache_free print "(FUNC+0xOFF) " (the call_site's kernel symbol,
// the offset as a 32-bit hex number) followed by the event's default print. When the call site
// does not resolve, only the default print.
#pragma once

#include <unordered_map>

#include <ringscope/handler.hpp>

namespace ringscope::kmem {

class KmemPrinter final : public EventHandler {
  public:
    std::string_view name() const override { return "kmem-print"; }
    std::vector<EventMatch> subscriptions() const override;
    bool overrides_print() const override { return true; }
    bool print(const Event& ev, PrintContext& pc, TextBuffer& out) override;

  private:
    std::unordered_map<const EventType*, FieldHandle> call_site_;
};

}  // namespace ringscope::kmem
