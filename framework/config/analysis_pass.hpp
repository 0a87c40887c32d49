// The event analyses of a run, fed from its one merged pass over the inputs: each handler sees the
// events it subscribed to, in time order, and gives its tables at the end. Which handlers want an
// event type is worked out once per type, so the per-event cost is one look-up.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <ringscope/analysis.hpp>
#include <ringscope/handler.hpp>
#include <ringscope/result.hpp>

namespace ringscope::config {

struct AnalysisTables {
    std::string name;
    std::vector<ResultTable> tables;
};

class AnalysisPass {
  public:
    // Makes the analysis's handler; false when the plugin refuses the parameters (no handler).
    bool add(const AnalysisSpec& spec, const AnalysisParams& params);
    bool empty() const noexcept { return entries_.empty(); }

    void begin(const TraceContext& ctx);
    void on_event(const Event& ev) {
        auto it = by_type_.find(ev.type_ptr());
        if (it == by_type_.end()) it = subscribe(ev);
        for (EventHandler* h : it->second) h->on_event(ev);
    }
    // Each analysis's tables, in the order they were added.
    std::vector<AnalysisTables> end();

  private:
    struct Entry {
        std::string name;
        std::unique_ptr<EventHandler> handler;
        std::vector<EventMatch> subscriptions;
    };
    using TypeMap = std::unordered_map<const EventType*, std::vector<EventHandler*>>;
    TypeMap::iterator subscribe(const Event& ev);

    std::vector<Entry> entries_;
    TypeMap by_type_;
};

}  // namespace ringscope::config
