// KvmExitsAnalysis's mergeable state: merge() and its JSON form for partial results (`--partial`,
// `--merge`). Exact: every exit-to-entry time is kept, so percentiles after a merge are those of
// one run.
#include <nlohmann/json.hpp>

#include <ringscope/text_escape.hpp>

#include "kvm_exits.hpp"

namespace ringscope::kvm {
namespace {

using json = nlohmann::json;

void add_durations(std::vector<uint64_t>& to, const std::vector<uint64_t>& from) {
    to.insert(to.end(), from.begin(), from.end());
}

}  // namespace

std::string_view KvmExitsAnalysis::own(std::string_view name) {
    return *names_.emplace(name).first;
}

void KvmExitsAnalysis::merge(const KvmExitsAnalysis& other) {
    std::vector<size_t> index(other.reasons_.size());  // other's reason -> ours
    for (size_t i = 0; i < other.reasons_.size(); ++i) {
        const Reason& o = other.reasons_[i];
        index[i] = add_reason(o.name, o.isa, o.value);
        Reason& mine = reasons_[index[i]];
        mine.d.count += o.d.count;
        add_durations(mine.d.ns, o.d.ns);
        for (const auto& [name, n] : o.functions) mine.functions[own(name)] += n;
    }
    for (const auto& [pid, o] : other.vcpus_) {
        Vcpu& v = vcpus_[pid];
        v.pid = pid;
        if (o.vcpu >= 0) set_vcpu(v, o.vcpu, o.vcpu_ts);
        v.d.count += o.d.count;
        add_durations(v.d.ns, o.d.ns);
        for (const auto& [r, d] : o.by_reason) {
            Durations& mine = v.by_reason[index[r]];
            mine.count += d.count;
            add_durations(mine.ns, d.ns);
        }
    }
    total_exits_ += other.total_exits_;
}

json KvmExitsAnalysis::save_state() const {
    json reasons = json::array(), vcpus = json::array();
    for (const Reason& r : reasons_) {
        json functions = json::array();
        for (const auto& [name, n] : r.functions) functions.push_back({escaped(name, TextTarget::utf8), n});
        reasons.push_back({{"name", r.name},
                           {"isa", r.isa},
                           {"exit_code", r.value},
                           {"count", r.d.count},
                           {"ns", r.d.ns},
                           {"functions", std::move(functions)}});
    }
    for (const auto& [pid, v] : vcpus_) {
        json by_reason = json::array();
        for (const auto& [r, d] : v.by_reason)
            by_reason.push_back({{"isa", reasons_[r].isa},
                                 {"exit_code", reasons_[r].value},
                                 {"count", d.count},
                                 {"ns", d.ns}});
        vcpus.push_back({{"pid", pid},
                         {"vcpu", v.vcpu},
                         {"vcpu_ts", v.vcpu_ts},
                         {"count", v.d.count},
                         {"ns", v.d.ns},
                         {"by_reason", std::move(by_reason)}});
    }
    return {{"total_exits", total_exits_}, {"reasons", std::move(reasons)}, {"vcpus", std::move(vcpus)}};
}

Status KvmExitsAnalysis::load_state(const json& state) {
    reset();
    try {
        for (const auto& j : state.at("reasons")) {
            size_t i = add_reason(j.at("name").get<std::string>(), j.at("isa").get<uint64_t>(),
                                  j.at("exit_code").get<uint64_t>());
            Reason& r = reasons_[i];
            r.d.count += j.at("count").get<uint64_t>();
            add_durations(r.d.ns, j.at("ns").get<std::vector<uint64_t>>());
            for (const auto& f : j.at("functions"))
                r.functions[own(f.at(0).get<std::string>())] += f.at(1).get<uint64_t>();
        }
        for (const auto& j : state.at("vcpus")) {
            Vcpu& v = vcpus_[j.at("pid").get<int>()];
            v.pid = j.at("pid").get<int>();
            v.vcpu = j.at("vcpu").get<int64_t>();
            v.vcpu_ts = j.at("vcpu_ts").get<uint64_t>();
            v.d.count = j.at("count").get<uint64_t>();
            v.d.ns = j.at("ns").get<std::vector<uint64_t>>();
            for (const auto& b : j.at("by_reason")) {
                auto r = reason_by_key_.find((b.at("isa").get<uint64_t>() << 32) |
                                             (b.at("exit_code").get<uint64_t>() & 0xffffffffu));
                if (r == reason_by_key_.end())
                    throw std::invalid_argument("a vCPU names an exit reason not listed");
                Durations& d = v.by_reason[r->second];
                d.count += b.at("count").get<uint64_t>();
                add_durations(d.ns, b.at("ns").get<std::vector<uint64_t>>());
            }
        }
        total_exits_ = state.at("total_exits").get<uint64_t>();
    } catch (const std::exception& e) {
        return Error(Errc::corrupt, std::string("bad analysis state: ") + e.what());
    }
    return Status::success();
}

}  // namespace ringscope::kvm
