#include "ipt/calls.hpp"

#include <algorithm>
#include <cinttypes>
#include <unordered_map>

#include "ipt/call_stack.hpp"
#include "ipt/errors.hpp"
#include "ipt/flow_options.hpp"
#include "ipt/flow_walk.hpp"
#include "ipt/image.hpp"
#include "ipt/insn_decoder.hpp"
#include "ipt/pages_behind.hpp"
#include "ipt/symbols.hpp"
#include "ipt/trace_file.hpp"

namespace ringscope::ipt {
namespace {

// The stack of functions the flow is in, as nodes of a call tree (a node: a function called from
// its parent's), and the instructions each node ran itself.
class CallTree {
  public:
    struct Node {
        int parent;
        int symbol;
        uint64_t insn = 0;
        uint64_t ticks = 0;  // TSC ticks (profile --time)
    };
    struct Hooks {
        virtual ~Hooks() = default;
        virtual void call(const CallTree&) {}
        virtual void ret(const CallTree&, int symbol) { (void)symbol; }
    };

    CallTree(const Symbols& symbols, Hooks& hooks) : symbols_(symbols), hooks_(hooks) {}

    // After a sync: nothing is known of the stack.
    void restart() { stack_.clear(); }

    // The instructions from ip on, n of them with their lengths, the last of class end; the
    // time that passed before the first (events) and with the last (its query) in ticks.
    void run(uint64_t ip, uint32_t n, const uint8_t* sizes, InsnClass end, uint64_t ticks_first = 0,
             uint64_t ticks_last = 0) {
        const int s = symbols_.find(ip);
        const CallStack::Edge edge = stack_.start(s, Child{this});
        if (edge == CallStack::Edge::call) {
            hooks_.call(*this);
        } else if (edge == CallStack::Edge::ret) {
            hooks_.ret(*this, stack_.top().symbol);
            stack_.pop();
        }
        stack_.ended(end);
        uint64_t last = ip;
        for (uint32_t k = 0; k + 1 < n; ++k) last += sizes[k];
        if (symbols_.find(last) == s) {
            Node& node = nodes_[static_cast<size_t>(stack_.place(s, Child{this}))];
            node.insn += n;
            node.ticks += ticks_first + ticks_last;
            return;
        }
        // A run across functions: each instruction where it is.
        for (uint32_t k = 0; k < n; ip += sizes[k++]) {
            Node& node = nodes_[static_cast<size_t>(stack_.place(symbols_.find(ip), Child{this}))];
            node.insn += 1;
            node.ticks += (k == 0 ? ticks_first : 0) + (k + 1 == n ? ticks_last : 0);
        }
    }

    size_t depth() const noexcept { return stack_.depth(); }
    int top_symbol() const noexcept { return stack_.top().symbol; }
    const std::vector<Node>& nodes() const noexcept { return nodes_; }
    const Symbols& symbols() const noexcept { return symbols_; }

    // "a;b;c" for a node.
    std::string path(int node) const {
        std::string p;
        for (int n = node; n >= 0; n = nodes_[static_cast<size_t>(n)].parent)
            p = symbols_.name(nodes_[static_cast<size_t>(n)].symbol) + (p.empty() ? "" : ";" + p);
        return p;
    }

  private:
    // The stack's frames: the node of a function called from the node parent's.
    int child(int parent, int symbol) {
        const uint64_t key =
            (static_cast<uint64_t>(static_cast<uint32_t>(parent)) << 32) | static_cast<uint32_t>(symbol);
        auto [it, added] = children_.try_emplace(key, static_cast<int>(nodes_.size()));
        if (added) nodes_.push_back({parent, symbol});
        return it->second;
    }
    struct Child {
        CallTree* tree;
        int operator()(int parent, int symbol) const { return tree->child(parent, symbol); }
    };

    const Symbols& symbols_;
    Hooks& hooks_;
    std::vector<Node> nodes_;
    std::unordered_map<uint64_t, int> children_;
    CallStack stack_;
};

struct Options {
    Config config;
    Image image;
    Symbols symbols;
    std::string pt;
    bool have_pt = false, time = false, folded = false;
};

// The arguments of both commands: 0, or the exit code.
int parse(const char* prog, const std::vector<std::string>& args, Options& o, bool calls, std::FILE* err) {
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--time") {
            o.time = true;
        } else if (!calls && a == "--folded") {
            o.folded = true;
        } else if (a == "--raw" || a == "--elf" || a == "--kallsyms" || a == "--pt") {
            if (i + 1 >= args.size()) {
                std::fprintf(err, "%s: %s: missing argument\n", prog, a.c_str());
                return 2;
            }
            const std::string& v = args[++i];
            if (a == "--kallsyms") {
                if (Status s = o.symbols.load_kallsyms(v); !s) {
                    std::fprintf(err, "%s: %s\n", prog, s.error().to_string().c_str());
                    return 1;
                }
            } else if (a == "--pt") {
                o.pt = v;
                o.have_pt = true;
            } else if (int rc = image_option(prog, a, v, o.image, err, &o.symbols); rc > 0) {
                return rc;
            }
        } else if (!a.empty() && a[0] != '-' && !o.have_pt) {
            o.pt = a;
            o.have_pt = true;
        } else {
            std::fprintf(err, "%s: unknown option: %s\n", prog, a.c_str());
            return 2;
        }
    }
    if (!o.have_pt) {
        std::fprintf(
            err,
            "usage: %s [--raw FILE[:OFF[-END]]:ADDR|--elf FILE[:BASE]]... [--kallsyms FILE] %s--pt FILE\n",
            prog, calls ? "[--time] " : "[--folded] [--time] ");
        return 2;
    }
    return 0;
}

// The flow from every sync point, run by run, into tree; errors printed as `ipt flow` prints them.
// With exact_time one run a call (the time after each branch, in *tsc, and the ticks each run
// took counted in the tree), else whole walks.
void follow(FlowWalk& walk, const InsnDecoder& d, CallTree& tree, std::FILE* out, bool exact_time,
            uint64_t* tsc) {
    // Differences of TSC values as decoded, modulo 2^64 (as the reference takes them).
    uint64_t after = 0;
    InsnPath p;
    for (;;) {
        switch (walk.next(p, exact_time)) {
            case FlowWalk::Step::end:
                return;
            case FlowWalk::Step::synced:
                tree.restart();
                after = 0;
                if (tsc) d.time(after);
                break;
            case FlowWalk::Step::error: {
                uint64_t offset = 0;
                d.get_offset(offset);
                std::fprintf(out, "[%" PRIx64 ": error: %s]\n", offset, pt_error_string(walk.status()));
                break;
            }
            case FlowWalk::Step::run: {
                for (uint32_t r = 0; r < p.nruns; ++r) {
                    const CachedRun& c = d.block_cache().at(p.runs[r]);
                    tree.run(c.ip, c.ninsn, d.block_cache().sizes(c), c.last.iclass);
                }
                // The time at the run's end: what its call or return line shows.
                const uint64_t last = after, before = walk.time_before();
                if (tsc) d.time(after);
                if (!p.nruns && p.single.ninsn)
                    tree.run(p.single.ip, p.single.ninsn, p.single.sizes, p.single.end_class, before - last,
                             after - before);
                if (tsc) *tsc = after;
                break;
            }
        }
    }
}

struct Printer : CallTree::Hooks {
    std::FILE* out;
    bool time;
    uint64_t tsc = 0;  // at the end of the run before: where the call or return was
    void prefix(size_t depth) {
        if (time) std::fprintf(out, "%016" PRIx64 "  ", tsc);
        for (size_t k = 0; k < depth; ++k) std::fputs("  ", out);
    }
    void call(const CallTree& t) override {
        prefix(t.depth());
        std::fprintf(out, "%s() {\n", t.symbols().name(t.top_symbol()).c_str());
    }
    void ret(const CallTree& t, int symbol) override {
        prefix(t.depth());
        std::fprintf(out, "} /* %s */\n", t.symbols().name(symbol).c_str());
    }
};

int run(const char* prog, const std::vector<std::string>& args, std::FILE* out, std::FILE* err, bool calls) {
    Options o;
    if (int rc = parse(prog, args, o, calls, err)) return rc;
    auto bytes = TraceBytes::map(o.pt);
    if (!bytes) {
        std::fprintf(err, "%s: %s\n", prog, bytes.error().to_string().c_str());
        return 1;
    }
    o.config.begin = bytes->begin();
    o.config.end = bytes->end();
    InsnDecoder d(o.config, o.image);
    PagesBehind pages(*bytes);
    FlowWalk walk(d, &pages, o.time);
    auto shrank = [&] {
        std::fflush(out);
        std::fprintf(err, "%s: %s\n", prog, pages.error().to_string().c_str());
        return 1;
    };
    if (calls) {
        Printer printer;
        printer.out = out;
        printer.time = o.time;
        CallTree tree(o.symbols, printer);
        follow(walk, d, tree, out, o.time, o.time ? &printer.tsc : nullptr);
        std::fflush(out);
        return pages.failed() ? shrank() : 0;
    }
    CallTree::Hooks none;
    CallTree tree(o.symbols, none);
    uint64_t tsc = 0;
    follow(walk, d, tree, out, o.time, o.time ? &tsc : nullptr);
    if (pages.failed()) return shrank();
    const auto& nodes = tree.nodes();
    // What a function counts: its instructions, or with --time the TSC ticks they took.
    auto count = [&](const CallTree::Node& n) { return o.time ? n.ticks : n.insn; };
    if (o.folded) {
        std::vector<std::string> lines;
        for (size_t n = 0; n < nodes.size(); ++n)
            if (count(nodes[n]))
                lines.push_back(tree.path(static_cast<int>(n)) + " " + std::to_string(count(nodes[n])));
        std::sort(lines.begin(), lines.end());
        for (const std::string& l : lines) std::fprintf(out, "%s\n", l.c_str());
        std::fflush(out);
        return 0;
    }
    std::unordered_map<int, uint64_t> self;
    uint64_t total = 0;
    for (const auto& n : nodes) {
        self[n.symbol] += count(n);
        total += count(n);
    }
    std::vector<std::pair<uint64_t, std::string>> rows;
    for (const auto& [symbol, insn] : self)
        if (insn) rows.push_back({insn, o.symbols.name(symbol)});
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    std::fprintf(out, "%14s %6s  %s\n", o.time ? "ticks" : "instructions", "%", "function");
    for (const auto& [insn, name] : rows)
        std::fprintf(out, "%14" PRIu64 " %6.2f  %s\n", insn,
                     100.0 * static_cast<double>(insn) / static_cast<double>(total), name.c_str());
    std::fflush(out);
    return 0;
}

}  // namespace

int calls_main(const std::vector<std::string>& args, std::FILE* out, std::FILE* err) {
    return run("ringscope ipt calls", args, out, err, true);
}

int profile_main(const std::vector<std::string>& args, std::FILE* out, std::FILE* err) {
    return run("ringscope ipt profile", args, out, err, false);
}

}  // namespace ringscope::ipt
