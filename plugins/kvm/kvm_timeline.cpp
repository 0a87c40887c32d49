#include "kvm_timeline.hpp"

#include <ringscope/text_escape.hpp>

namespace ringscope::kvm {

void KvmTimeline::on_event(const Event& ev, TimelineSink& sink) {
    const ExitFields& ti = types_.of(ev.type());
    uint64_t vcpu = 0;
    if (ti.vcpu.get(ev, vcpu, nullptr)) sink.vcpu(ev, static_cast<int64_t>(vcpu));
    uint64_t value = 0, isa = kIsaVmx, rip = 0;
    if (!ti.is_exit || !ti.reason.get(ev, value, nullptr)) return;
    ti.isa.get(ev, isa, nullptr);
    reason_.clear();
    ti.names.append(isa, value, reason_);
    std::string_view func;
    std::optional<Symbol> sym;
    if (ti.rip.get(ev, rip, nullptr) && (sym = guest_.lookup(ev, rip))) func = sym->name;
    // Reason names come from the trace's format: data, kept valid UTF-8 as `kvm exits` keeps them.
    sink.mark(ev, escaped(reason_.view(), TextTarget::utf8), func);
}

}  // namespace ringscope::kvm
