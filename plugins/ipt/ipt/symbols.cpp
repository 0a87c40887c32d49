#include "ipt/symbols.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

#include <ringscope/context.hpp>
#include <ringscope/trace.hpp>

#include "ipt/image.hpp"

namespace ringscope::ipt {

Symbols::Symbols() = default;
Symbols::~Symbols() = default;

Status Symbols::load_kallsyms(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Error(Errc::io, "cannot open").in_file(path);
    // trace.dat's magic: 0x17 0x08 0x44 "tracing".
    char magic[10] = {};
    in.read(magic, sizeof magic);
    if (in.gcount() == sizeof magic && std::memcmp(magic, "\x17\x08\x44tracing", sizeof magic) == 0)
        return load_trace(path);
    in.clear();
    in.seekg(0);
    std::string line;
    for (size_t number = 1; std::getline(in, line); ++number) {
        std::istringstream words(line);
        std::string address, second, third;
        words >> address >> second >> third;
        if (address.empty()) continue;
        uint64_t value = 0;
        if (!parse_number("0x" + address, value) || second.empty())
            return Error(Errc::parse, "not ADDR [TYPE] NAME").in_file(path).at_line(static_cast<int>(number));
        if (third.empty()) {
            add(value, second);
        } else if (second == "t" || second == "T") {
            add(value, third);
        }
    }
    if (in.bad()) return Error(Errc::io, "read error").in_file(path);
    return {};
}

Status Symbols::load_trace(const std::string& path) {
    if (trace_) return Error(Errc::invalid_argument, "a second trace.dat for kallsyms").in_file(path);
    TraceOpenOptions options;
    options.load_plugins = false;
    auto trace = Trace::open(path, options);
    if (!trace) return std::move(trace).error();
    if (!trace->context().resolvers().has(kKernelDomain))
        return Error(Errc::invalid_argument, "the trace has no kallsyms").in_file(path);
    trace_ = std::make_unique<Trace>(std::move(*trace));
    return {};
}

void Symbols::add(uint64_t address, std::string name) {
    if (!entries_.empty() && address < entries_.back().address) sorted_ = false;
    entries_.push_back({address, std::move(name)});
}

void Symbols::sort() const {
    std::stable_sort(entries_.begin(), entries_.end(),
                     [](const Entry& a, const Entry& b) { return a.address < b.address; });
    sorted_ = true;
}

int Symbols::find_added(uint64_t address) const {
    if (!sorted_) sort();
    auto it = std::upper_bound(entries_.begin(), entries_.end(), address,
                               [](uint64_t a, const Entry& e) { return a < e.address; });
    if (it == entries_.begin()) return -1;
    return static_cast<int>(it - entries_.begin()) - 1;
}

int Symbols::find(uint64_t address) const {
    if (trace_) {
        if (auto s = trace_->context().resolvers().lookup(kKernelDomain, address)) {
            auto [it, added] =
                by_start_.try_emplace(s->start, kTraceIndex + static_cast<int>(trace_names_.size()));
            if (added) trace_names_.emplace_back(s->name);
            return it->second;
        }
    }
    return find_added(address);
}

const std::string& Symbols::name(int index) const noexcept {
    static const std::string unknown = "[unknown]";
    if (index >= kTraceIndex) return trace_names_[static_cast<size_t>(index - kTraceIndex)];
    return index < 0 ? unknown : entries_[static_cast<size_t>(index)].name;
}

}  // namespace ringscope::ipt
