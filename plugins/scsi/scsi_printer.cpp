#include "scsi_printer.hpp"

#include "cdb_text.hpp"

namespace ringscope::scsi {
namespace {

uint64_t unused(uint64_t) {
    return 0;
}

}  // namespace

ScsiPrinter::ScsiPrinter()
    : functions_{{"scsi_trace_parse_cdb", &unused, nullptr, nullptr, &append_cdb_text}} {}

bool ScsiPrinter::print(const Event& ev, PrintContext&, TextBuffer& out) {
    auto it = renderers_.find(ev.type_ptr());
    if (it == renderers_.end()) {
        std::unique_ptr<printfmt::PrintFmtRenderer> r;
        if (ev.type().print_fmt.find("scsi_trace_parse_cdb(") != std::string::npos)
            r = printfmt::PrintFmtRenderer::compile(ev.type(), functions_);
        it = renderers_.emplace(ev.type_ptr(), std::move(r)).first;
    }
    if (!it->second) return false;  // not ours, or beyond the evaluator: the default print
    it->second->render(ev, out);
    return true;
}

}  // namespace ringscope::scsi
