#include "framework/cli/report_types.hpp"

namespace ringscope::cli {

TypeTables::TypeTables(engine::TraceSet& set,
                       std::span<const std::unique_ptr<engine::PrintDispatch>> dispatch, bool compile_direct)
    : set_(set), dispatch_(dispatch), compile_direct_(compile_direct) {
    for (size_t f = 0; f < set.size(); ++f) {
        const size_t n = set.file(f).formats().small_id_bound();
        in_order_.emplace_back(n, 1);
        resolved_.emplace_back(n, 0);
        direct_.emplace_back(n, nullptr);
    }
}

void TypeTables::fill(size_t f, const EventType* t) {
    resolved_[f][t->id] = 1;
    const engine::PrintDispatch& d = *dispatch_[f];
    in_order_[f][t->id] = d.overridden(t->id) || d.raw(t->id) || !d.subscribers(t->id).empty() ||
                          set_.file(f).formats().print_has_side_effects(*t);
    if (compile_direct_ && !d.overridden(t->id) && !d.raw(t->id))
        direct_[f][t->id] = set_.file(f).formats().compiled(*t);
}

void write_stateless_line(output::ReportLineWriter& w, TextBuffer& info, const format::CompiledPrint* cp,
                          bool swap, engine::PrintDispatch& dispatch, std::string_view prefix,
                          const Event& ev, std::string_view comm, int pid,
                          const output::TimeStyle& time_style, const output::CommonLayout& common) {
    const std::span<const uint8_t> payload = ev.payload();
    if (cp) {
        w.write(prefix, ev, comm, pid, ev.timestamp(), ev.missed_before(), time_style, common, *cp,
                {payload.data(), static_cast<uint32_t>(payload.size()), swap});
        return;
    }
    info.clear();
    dispatch.print_info(ev, info);
    w.write(prefix, ev, comm, pid, ev.timestamp(), ev.missed_before(), time_style, common, info.view());
}

output::CommonLayout common_layout(engine::TraceSet& set, size_t f, const EventType* first) {
    output::CommonLayout common;
    auto layout_of = [&](const EventType* t) {
        const FieldInfo* fl = t->find_field("common_flags");
        const FieldInfo* pc = t->find_field("common_preempt_count");
        if (fl) common = {fl->offset, fl->size, pc ? pc->offset : 0, pc ? pc->size : 0};
        return fl != nullptr;
    };
    if (layout_of(first)) return common;
    for (const EventType* t : set.file(f).types())
        if (layout_of(t)) break;
    return common;
}

}  // namespace ringscope::cli
