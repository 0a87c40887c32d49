#include "cfg80211_printer.hpp"

namespace ringscope::cfg80211 {
namespace {

uint64_t unused(uint64_t) {
    return 0;
}

uint64_t le16_at(std::span<const uint8_t> bytes) {
    const uint64_t lo = bytes.size() > 0 ? bytes[0] : 0;
    const uint64_t hi = bytes.size() > 1 ? bytes[1] : 0;
    return lo | hi << 8;
}

}  // namespace

Cfg80211Printer::Cfg80211Printer() : functions_{{"__le16_to_cpup", &unused, nullptr, &le16_at}} {}

bool Cfg80211Printer::print(const Event& ev, PrintContext&, TextBuffer& out) {
    auto it = renderers_.find(ev.type_ptr());
    if (it == renderers_.end()) {
        std::unique_ptr<printfmt::PrintFmtRenderer> r;
        if (ev.type().print_fmt.find("__le16_to_cpup(") != std::string::npos)
            r = printfmt::PrintFmtRenderer::compile(ev.type(), functions_);
        it = renderers_.emplace(ev.type_ptr(), std::move(r)).first;
    }
    if (!it->second) return false;  // not ours, or beyond the evaluator: the default print
    it->second->render(ev, out);
    return true;
}

}  // namespace ringscope::cfg80211
