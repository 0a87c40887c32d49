#include "framework/symbols/kernel_sections_resolver.hpp"

namespace ringscope::symbols {

std::optional<Symbol> KernelSectionsResolver::lookup(uint64_t addr) const {
    uint64_t here = addr;  // the address in the boot the kallsyms and modules describe
    if (relocation_) {
        const BootRelocation::Place p = relocation_->relocate(addr);
        if (p.gone) return Symbol{p.gone->label, p.gone->address, 0, p.gone->name};
        here = p.addr;
    }
    std::optional<Symbol> s = kallsyms_ ? kallsyms_->lookup(here) : std::nullopt;
    if (modules_) {
        const LoadedModule* m = modules_->find(here);
        if (m && (!s || s->module != m->name)) s = Symbol{m->label, m->address, m->size, m->name};
    }
    if (s) s->start = s->start - here + addr;  // back to the boot the address was recorded in
    return s;
}

std::string KernelSectionsResolver::describe() const {
    std::string d = kallsyms_ ? kallsyms_->describe() : std::string("no kallsyms");
    if (modules_) d += ", " + std::to_string(modules_->modules().size()) + " modules";
    if (relocation_) d += ", previous boot relocated by " + std::to_string(relocation_->kernel_delta());
    return d;
}

}  // namespace ringscope::symbols
