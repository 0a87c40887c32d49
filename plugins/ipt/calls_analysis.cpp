#include "calls_analysis.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <tuple>

namespace ringscope::ipt {
namespace {

class CallsAnalysis final : public EventHandler {
  public:
    std::string_view name() const override { return "ipt.calls"; }
    std::vector<EventMatch> subscriptions() const override {
        return {{"ipt", "call"}, {"ipt", "return"}, {"ipt", "error"}};
    }

    void on_event(const Event& ev) override {
        if (ev.name() == "error") {
            ++errors_;
            return;
        }
        const bool call = ev.name() == "call";
        // Found by view: a string made per event would cost more than the rest of the analysis.
        const std::string_view symbol = ev.str("symbol").value_or("");
        auto it = functions_.find(symbol);
        if (it == functions_.end()) it = functions_.emplace(std::string(symbol), Function{}).first;
        Function& f = it->second;
        if (!call) {
            ++f.returns;
            return;
        }
        ++f.calls;
        f.max_depth = std::max<uint64_t>(f.max_depth, static_cast<uint64_t>(ev.integer("depth").value_or(0)));
    }

    void end(ResultSink& sink) override {
        std::vector<std::pair<std::string, Function>> rows(functions_.begin(), functions_.end());
        // Most called first; then by name, so the table is the same every run.
        std::stable_sort(rows.begin(), rows.end(),
                         [](const auto& a, const auto& b) { return a.second.calls > b.second.calls; });
        ResultTable t{"ipt.calls.functions", {"function", "calls", "returns", "max_depth"}, {}};
        for (const auto& [name, f] : rows) t.rows.push_back({name, f.calls, f.returns, f.max_depth});
        sink.add_table(std::move(t));
        sink.add_table({"ipt.calls.errors", {"errors"}, {{errors_}}});
    }

  private:
    struct Function {
        uint64_t calls = 0, returns = 0, max_depth = 0;
    };
    std::map<std::string, Function, std::less<>> functions_;
    uint64_t errors_ = 0;
};

}  // namespace

AnalysisSpec calls_analysis_spec() {
    return {"ipt.calls",
            "calls and returns per function of an Intel PT input's flow (input options: ipt: {raw|elf})",
            {},
            [](const AnalysisParams&) { return std::make_unique<CallsAnalysis>(); }};
}

}  // namespace ringscope::ipt
