#include "jbd2_printer.hpp"

namespace ringscope::jbd2 {
namespace {

uint64_t identity(uint64_t v) {
    return v;
}
uint64_t zero(uint64_t) {
    return 0;
}

// The kernel's dev_t: 12 bits of major above 20 bits of minor, of an unsigned int.
void dev_to_name(uint64_t arg, TextBuffer& out) {
    const auto dev = static_cast<unsigned>(arg);
    out.appendf("%d:%d", static_cast<int>(dev >> 20), static_cast<int>(dev & ((1u << 20) - 1)));
}

void jiffies_text(uint64_t arg, TextBuffer& out) {
    out.appendf("%lld", static_cast<long long>(arg));
}

bool calls_helper(const EventType& t, const std::vector<printfmt::PrintFunction>& fns) {
    for (const auto& f : fns) {
        const size_t at = t.print_fmt.find(f.name);
        if (at != std::string::npos && t.print_fmt.compare(at + f.name.size(), 1, "(") == 0) return true;
    }
    return false;
}

}  // namespace

Jbd2Printer::Jbd2Printer()
    : functions_{{"jiffies_to_msecs", &identity, &jiffies_text}, {"jbd2_dev_to_name", &zero, &dev_to_name}} {}

bool Jbd2Printer::print(const Event& ev, PrintContext& pc, TextBuffer& out) {
    auto it = renderers_.find(ev.type_ptr());
    if (it == renderers_.end()) {
        std::unique_ptr<printfmt::PrintFmtRenderer> r;
        if (calls_helper(ev.type(), functions_))
            r = printfmt::PrintFmtRenderer::compile(ev.type(), functions_);
        it = renderers_.emplace(ev.type_ptr(), std::move(r)).first;
    }
    if (!it->second) return false;  // nothing of ours in this format: the default print
    it->second->render(ev, out);
    return true;
}

}  // namespace ringscope::jbd2
