#include "framework/config/analysis_pass.hpp"

namespace ringscope::config {

bool AnalysisPass::add(const AnalysisSpec& spec, const AnalysisParams& params) {
    std::unique_ptr<EventHandler> h = spec.create ? spec.create(params) : nullptr;
    if (!h) return false;
    std::vector<EventMatch> subs = h->subscriptions();
    entries_.push_back({spec.name, std::move(h), std::move(subs)});
    by_type_.clear();
    return true;
}

void AnalysisPass::begin(const TraceContext& ctx) {
    for (auto& e : entries_) e.handler->begin(ctx);
}

AnalysisPass::TypeMap::iterator AnalysisPass::subscribe(const Event& ev) {
    std::vector<EventHandler*> wanted;
    for (auto& e : entries_)
        for (const auto& m : e.subscriptions)
            if (m.matches(ev.system(), ev.name())) {
                wanted.push_back(e.handler.get());
                break;
            }
    return by_type_.emplace(ev.type_ptr(), std::move(wanted)).first;
}

std::vector<AnalysisTables> AnalysisPass::end() {
    std::vector<AnalysisTables> out;
    for (auto& e : entries_) {
        TableCollector tables;
        e.handler->end(tables);
        out.push_back({e.name, std::move(tables.tables)});
    }
    return out;
}

}  // namespace ringscope::config
