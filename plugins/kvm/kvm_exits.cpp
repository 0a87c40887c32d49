#include "kvm_exits.hpp"

#include <algorithm>
#include <memory>

#include <ringscope/text_escape.hpp>

namespace ringscope::kvm {
namespace {

constexpr std::string_view kUnresolved = "[unresolved]";

double percent(uint64_t part, uint64_t whole) {
    return whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

// Nearest rank: the smallest value with at least p% of the values at or below it.
uint64_t nearest_rank(const std::vector<uint64_t>& sorted, unsigned p) {
    size_t n = sorted.size();
    size_t rank = (static_cast<size_t>(p) * n + 99) / 100;
    return sorted[rank ? rank - 1 : 0];
}

}  // namespace

void KvmExitsAnalysis::begin(const TraceContext&) {
    reset();
}

void KvmExitsAnalysis::reset() {
    types_.clear();
    reason_by_key_.clear();
    reasons_.clear();
    vcpus_.clear();
    pending_.clear();
    names_.clear();
    guest_.reset();
    total_exits_ = 0;
}

namespace {
uint64_t reason_key(uint64_t isa, uint64_t value) {
    return (isa << 32) | (value & 0xffffffffu);
}
}  // namespace

size_t KvmExitsAnalysis::add_reason(std::string name, uint64_t isa, uint64_t value) {
    auto it = reason_by_key_.find(reason_key(isa, value));
    if (it != reason_by_key_.end()) return it->second;
    Reason r;
    r.name = escaped(name, TextTarget::utf8);  // from the trace's format: data, kept valid UTF-8
    r.isa = isa;
    r.value = value;
    reasons_.push_back(std::move(r));
    reason_by_key_.emplace(reason_key(isa, value), reasons_.size() - 1);
    return reasons_.size() - 1;
}

size_t KvmExitsAnalysis::reason_index(const ExitFields& ti, uint64_t isa, uint64_t value) {
    auto it = reason_by_key_.find(reason_key(isa, value));
    if (it != reason_by_key_.end()) return it->second;
    scratch_.clear();
    ti.names.append(isa, value, scratch_);
    return add_reason(std::string(scratch_.view()), isa, value);
}

void KvmExitsAnalysis::set_vcpu(Vcpu& v, int64_t vcpu, uint64_t ts) {
    if (v.vcpu >= 0 && (ts < v.vcpu_ts || (ts == v.vcpu_ts && vcpu <= v.vcpu))) return;
    v.vcpu = vcpu;
    v.vcpu_ts = ts;
}

void KvmExitsAnalysis::on_input_event(size_t input, const Event& ev) {
    const ExitFields& ti = types_.of(ev.type());
    Vcpu& v = vcpus_[ev.pid()];
    v.pid = ev.pid();
    uint64_t vcpu_id = 0;
    if (ti.vcpu.get(ev, vcpu_id, nullptr)) set_vcpu(v, static_cast<int64_t>(vcpu_id), ev.timestamp());
    const uint64_t pending_key = (static_cast<uint64_t>(input) << 32) | static_cast<uint32_t>(ev.pid());

    if (!ti.is_exit) {
        auto p = pending_.find(pending_key);
        if (p != pending_.end() && ev.timestamp() >= p->second.ts) {
            uint64_t ns = ev.timestamp() - p->second.ts;
            reasons_[p->second.reason].d.ns.push_back(ns);
            v.d.ns.push_back(ns);
            v.by_reason[p->second.reason].ns.push_back(ns);
        }
        if (p != pending_.end()) pending_.erase(p);
        return;
    }
    uint64_t value = 0, isa = kIsaVmx, rip = 0;
    if (!ti.reason.get(ev, value, nullptr)) return;  // not a usable kvm_exit
    ti.isa.get(ev, isa, nullptr);
    size_t r = reason_index(ti, isa, value);
    Reason& reason = reasons_[r];
    ++total_exits_;
    ++reason.d.count;
    ++v.d.count;
    ++v.by_reason[r].count;
    pending_[pending_key] = Pending{ev.timestamp(), r};
    std::string_view func = kUnresolved;
    if (ti.rip.get(ev, rip, nullptr))
        if (auto sym = guest_.lookup(ev, rip)) func = sym->name;
    ++reason.functions[func];
}

void KvmExitsAnalysis::add_stats(std::vector<Cell>& row, Durations& d) {
    if (d.ns.empty()) {
        for (int i = 0; i < 5; ++i) row.emplace_back(std::monostate{});
        return;
    }
    std::sort(d.ns.begin(), d.ns.end());
    long double sum = 0;
    for (uint64_t x : d.ns) sum += x;
    row.emplace_back(d.ns.front());
    row.emplace_back(static_cast<double>(sum / d.ns.size()));
    row.emplace_back(nearest_rank(d.ns, 50));
    row.emplace_back(nearest_rank(d.ns, 99));
    row.emplace_back(d.ns.back());
}

namespace {

// The kvm_exit event's isa field: KVM_ISA_VMX (1) or KVM_ISA_SVM (2), as the kernel names them.
Cell isa_name(uint64_t isa) {
    if (isa == 1) return std::string("VMX");
    if (isa == 2) return std::string("SVM");
    return isa;
}

}  // namespace

void KvmExitsAnalysis::end(ResultSink& sink) {
    const std::vector<std::string> stats = {"min_ns", "mean_ns", "p50_ns", "p99_ns", "max_ns"};
    auto by_count = [&](size_t a, size_t b) {
        const Reason &x = reasons_[a], &y = reasons_[b];
        return x.d.count != y.d.count ? x.d.count > y.d.count : x.name < y.name;
    };
    std::vector<size_t> order(reasons_.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), by_count);

    ResultTable reasons{"kvm.exits.reasons", {"reason", "isa", "exit_code", "count", "share_pct"}, {}};
    reasons.columns.insert(reasons.columns.end(), stats.begin(), stats.end());
    for (size_t i : order) {
        Reason& r = reasons_[i];
        std::vector<Cell> row{r.name, isa_name(r.isa), r.value, r.d.count, percent(r.d.count, total_exits_)};
        add_stats(row, r.d);
        reasons.rows.push_back(std::move(row));
    }

    std::vector<Vcpu*> vcpus;
    for (auto& [pid, v] : vcpus_)
        if (v.d.count) vcpus.push_back(&v);
    std::sort(vcpus.begin(), vcpus.end(), [](const Vcpu* a, const Vcpu* b) { return a->pid < b->pid; });
    ResultTable per_vcpu{"kvm.exits.vcpus", {"pid", "vcpu", "count", "share_pct"}, {}};
    per_vcpu.columns.insert(per_vcpu.columns.end(), stats.begin(), stats.end());
    ResultTable per_vcpu_reason{
        "kvm.exits.vcpu_reasons", {"pid", "vcpu", "reason", "count", "share_pct"}, {}};
    per_vcpu_reason.columns.insert(per_vcpu_reason.columns.end(), stats.begin(), stats.end());
    for (Vcpu* v : vcpus) {
        std::vector<Cell> row{int64_t{v->pid}, v->vcpu, v->d.count, percent(v->d.count, total_exits_)};
        add_stats(row, v->d);
        per_vcpu.rows.push_back(std::move(row));
        for (size_t i : order) {
            auto it = v->by_reason.find(i);
            if (it == v->by_reason.end()) continue;
            std::vector<Cell> r{int64_t{v->pid}, v->vcpu, reasons_[i].name, it->second.count,
                                percent(it->second.count, v->d.count)};
            add_stats(r, it->second);
            per_vcpu_reason.rows.push_back(std::move(r));
        }
    }

    ResultTable funcs{"kvm.exits.functions", {"reason", "rank", "function", "count", "share_pct"}, {}};
    for (size_t i : order) {
        Reason& r = reasons_[i];
        std::vector<std::pair<std::string_view, uint64_t>> f(r.functions.begin(), r.functions.end());
        std::sort(f.begin(), f.end(), [](const auto& a, const auto& b) {
            return a.second != b.second ? a.second > b.second : a.first < b.first;
        });
        for (size_t k = 0; k < f.size() && k < opts_.top_functions; ++k)
            funcs.rows.push_back({r.name, uint64_t{k + 1}, std::string(f[k].first), f[k].second,
                                  percent(f[k].second, r.d.count)});
    }
    sink.add_table(std::move(reasons));
    sink.add_table(std::move(per_vcpu));
    sink.add_table(std::move(per_vcpu_reason));
    sink.add_table(std::move(funcs));
}

AnalysisSpec exits_analysis_spec() {
    return {"kvm.exits",
            "KVM exits per reason and vCPU, exit-to-entry time, guest functions",
            {{"top", ParamType::integer, "5", "guest functions listed per exit reason"}},
            [](const AnalysisParams& p) -> std::unique_ptr<EventHandler> {
                const int64_t top = p.integer("top");
                if (top < 1 || top > kMaxTopFunctions) return nullptr;  // as `kvm exits --top` refuses
                return std::make_unique<KvmExitsAnalysis>(KvmExitsOptions{static_cast<size_t>(top)});
            }};
}

}  // namespace ringscope::kvm
