#include "profile_stacks.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstring>
#include <vector>

#include <ringscope/resolver.hpp>

namespace ringscope::sched {
namespace {

using Stack = std::pair<const std::string, StackFigures>;

// One branch of the tree: the chains that share the callers up to and including `val`.
struct Chain {
    uint64_t val = 0, time = 0, count = 0, min = 0, ts_min = 0, max = 0, ts_max = 0;
    int percent = 0;
    std::vector<Chain> children;
};

constexpr int kIndent = 5;

// trace-cmd's order of the chains: their bytes as unsigned ints, then the shorter first.
bool stack_less(const Stack* a, const Stack* b) {
    const std::string& x = a->first;
    const std::string& y = b->first;
    const size_t n = std::min(x.size(), y.size());
    for (size_t i = 0; i + sizeof(uint32_t) <= n; i += sizeof(uint32_t)) {
        uint32_t u, v;
        std::memcpy(&u, x.data() + i, sizeof u);
        std::memcpy(&v, y.data() + i, sizeof v);
        if (u != v) return u < v;
    }
    return x.size() < y.size();
}

class ChainBuilder {
  public:
    explicit ChainBuilder(int long_size)
        : long_size_(long_size), stop_(long_size < 8 ? (uint64_t{1} << (long_size * 8)) - 1 : ~uint64_t{0}) {}

    // The branches at `level` of the chains stacks[from, to), which agree on the levels before it.
    std::vector<Chain> build(const std::vector<const Stack*>& stacks, size_t from, size_t to,
                             int level) const;

  private:
    bool overflows(const Stack* s, int level) const {
        return static_cast<int64_t>(long_size_) * level > static_cast<int64_t>(s->first.size()) - long_size_;
    }
    uint64_t value(const Stack* s, int level) const {
        const char* p = s->first.data() + static_cast<size_t>(long_size_) * level;
        if (long_size_ == 8) {
            uint64_t v;
            std::memcpy(&v, p, sizeof v);
            return v;
        }
        uint32_t v;
        std::memcpy(&v, p, sizeof v);
        return v;
    }
    // The stack has a caller at `level` that does not end it.
    bool has(const Stack* s, int level) const { return !overflows(s, level) && value(s, level) != stop_; }

    int long_size_;
    uint64_t stop_;
};

std::vector<Chain> ChainBuilder::build(const std::vector<const Stack*>& stacks, size_t from, size_t to,
                                       int level) const {
    std::vector<Chain> chains;
    uint64_t total_time = 0, total_count = 0;
    size_t start = from;
    Chain c;
    for (size_t i = from; i < to; ++i) {
        if (!has(stacks[i], level)) {
            start = i + 1;
            continue;
        }
        const uint64_t val = value(stacks[i], level);
        const StackFigures& f = stacks[i]->second;
        c.count += f.count;
        c.time += f.time;
        if (f.max > c.max) c.max = f.max, c.ts_max = f.ts_max;
        if (i == start || f.min < c.min) c.min = f.min, c.ts_min = f.ts_min;
        if (i + 1 < to && !overflows(stacks[i + 1], level) && value(stacks[i + 1], level) == val) continue;
        total_time += c.time;
        total_count += c.count;
        c.val = val;
        c.children = build(stacks, start, i + 1, level + 1);
        chains.push_back(std::move(c));
        c = Chain{};
        start = i + 1;
    }
    // Longest time first, then most seen; ties keep the chains' order (glibc's qsort is stable).
    std::stable_sort(chains.begin(), chains.end(), [](const Chain& a, const Chain& b) {
        return a.time != b.time ? a.time > b.time : a.count > b.count;
    });
    for (Chain& ch : chains) {
        const uint64_t part = total_time ? ch.time : ch.count, total = total_time ? total_time : total_count;
        if (total) ch.percent = static_cast<int>((part * 100 + total / 2) / total);
    }
    return chains;
}

void append_time(uint64_t ts, TextBuffer& out) {
    out.appendf("%" PRIu64 ".%06" PRIu64, ts / 1000000000, (ts % 1000000000 + 500) / 1000);
}

class ChainPrinter {
  public:
    ChainPrinter(const TraceContext& ctx, TextBuffer& out) : ctx_(ctx), out_(out) {}
    void print(const std::vector<Chain>& chains, int level);

  private:
    // trace-cmd's "%*c " with its INDENT of 5, for `level` + 1 columns.
    void column(char c) {
        out_.append_repeat(' ', kIndent - 1);
        out_.push_back(c);
        out_.push_back(' ');
    }
    void indent(int level) {
        for (int p = 0; p <= level; ++p) column((mask_ >> p) & 1 ? '|' : ' ');
    }
    void function(uint64_t val) {
        if (auto sym = ctx_.resolvers().lookup(kKernelDomain, val))
            out_.appendf("%.*s (0x%" PRIx64 ")\n", static_cast<int>(sym->name.size()), sym->name.data(), val);
        else
            out_.appendf("0x%" PRIx64 "\n", val);
    }
    void figures(const Chain& c, char line);

    const TraceContext& ctx_;
    TextBuffer& out_;
    uint64_t mask_ = 0;
};

void ChainPrinter::figures(const Chain& c, char line) {
    out_.appendf("%*c   %d%% (%" PRIu64 ")", kIndent, line, c.percent, c.count);
    if (c.time) {
        out_.appendf(" time:%" PRIu64 " max:%" PRIu64 "(ts:", c.time, c.max);
        append_time(c.ts_max, out_);
        out_.appendf(") min:%" PRIu64 "(ts:", c.min);
        append_time(c.ts_min, out_);
        out_.appendf(") avg:%" PRIu64, c.time / c.count);
    }
    out_.push_back('\n');
}

void ChainPrinter::print(const std::vector<Chain>& chains, int level) {
    if (chains.empty()) return;
    const uint64_t bit = level + 1 < 64 ? uint64_t{1} << (level + 1) : 0;
    mask_ |= bit;
    indent(level + 1);
    out_.push_back('\n');
    char line = '|';
    for (size_t i = 0; i < chains.size(); ++i) {
        indent(level);
        out_.appendf("%*c ", kIndent, '+');
        if (i + 1 == chains.size()) {
            mask_ &= ~bit;
            line = ' ';
        }
        function(chains[i].val);
        indent(level);
        figures(chains[i], line);
        // A caller with a single child continues the branch's list.
        const std::vector<Chain>* children = &chains[i].children;
        while (children->size() == 1) {
            indent(level);
            out_.appendf("%*c    ", kIndent, line);
            function(children->front().val);
            children = &children->front().children;
        }
        print(*children, level + 1);
        indent(level + 1);
        out_.push_back('\n');
    }
    mask_ &= ~bit;
    indent(level);
    out_.push_back('\n');
}

}  // namespace

void StackSet::add(std::span<const uint8_t> caller, uint64_t time, uint64_t ts) {
    StackFigures& f = stacks_[std::string(reinterpret_cast<const char*>(caller.data()), caller.size())];
    ++f.count;
    f.time += time;
    if (f.count == 1 || time < f.min) f.min = time, f.ts_min = ts;
    if (time > f.max) f.max = time, f.ts_max = ts;
}

void StackSet::merge(const StackSet& other) {
    for (const auto& [caller, f] : other.stacks_) {
        auto [it, fresh] = stacks_.try_emplace(caller, f);
        if (fresh) continue;
        StackFigures& m = it->second;
        m.count += f.count;
        m.time += f.time;
        if (m.max < f.max) m.max = f.max, m.ts_max = f.ts_max;
        if (m.min > f.min) m.min = f.min, m.ts_min = f.ts_min;
    }
}

void StackSet::print(const TraceContext& ctx, TextBuffer& out) const {
    std::vector<const Stack*> stacks;
    stacks.reserve(stacks_.size());
    for (const auto& s : stacks_) stacks.push_back(&s);
    std::sort(stacks.begin(), stacks.end(), stack_less);
    const ChainBuilder builder(ctx.long_size());
    ChainPrinter(ctx, out).print(builder.build(stacks, 0, stacks.size(), 0), 0);
}

}  // namespace ringscope::sched
