#include "ipt/calls.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstring>
#include <unordered_map>

#include <ringscope/text_buffer.hpp>

#include "ipt/call_tree.hpp"
#include "ipt/errors.hpp"
#include "ipt/flow_options.hpp"
#include "ipt/flow_walk.hpp"
#include "ipt/hex16.hpp"
#include "ipt/image.hpp"
#include "ipt/insn_decoder.hpp"
#include "ipt/pages_behind.hpp"
#include "ipt/run_symbols.hpp"
#include "ipt/symbols.hpp"
#include "ipt/trace_file.hpp"

namespace ringscope::ipt {
namespace {

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

// Text written out in large blocks: `ipt calls` prints millions of short lines, and stdio calls
// for each piece of them were most of its time.
struct Lines {
    std::FILE* out;
    TextBuffer text;

    ~Lines() { flush(); }
    // After a line: written out when the block is full.
    void ended() {
        if (text.size() >= (size_t{1} << 16)) flush();
    }
    void flush() {
        if (!text.empty()) std::fwrite(text.data(), 1, text.size(), out);
        text.clear();
    }
};

// The runs of a path into tree. With tsc (a timed walk, FlowWalk): first, the ticks before the
// first run (events), and each run's own to the time it ended at (times), where the next one's
// call or return line is.
void take_runs(CallTree& tree, RunSymbols& symbols, const BlockCache& cache, const InsnPath& p, uint64_t* tsc,
               RunTimes times, uint64_t first) {
    if (!tsc) {
        for (uint32_t r = 0; r < p.nruns; ++r) {
            const CachedRun& c = cache.at(p.runs[r]);
            tree.run(c.ip, c.ninsn, cache.sizes(c), c.last.iclass, symbols.of(cache, p.runs[r]));
        }
        return;
    }
    for (uint32_t r = 0; r < p.nruns; ++r) {
        const uint64_t was = times.at();
        if (r) *tsc = was;
        const CachedRun& c = cache.at(p.runs[r]);
        tree.run(c.ip, c.ninsn, cache.sizes(c), c.last.iclass, symbols.of(cache, p.runs[r]), r ? 0 : first,
                 times.next() - was);
    }
}

// The flow from every sync point, a path at a time, into tree; errors printed as `ipt flow`
// prints them. With tsc the time after each run (in *tsc as its successor's line is printed),
// and the ticks each run took counted in the tree.
void follow(FlowWalk& walk, const InsnDecoder& d, CallTree& tree, Lines& out, uint64_t* tsc) {
    // Differences of TSC values as decoded, modulo 2^64 (as the reference takes them).
    uint64_t after = 0;
    InsnPath p;
    RunSymbols symbols(tree.symbols());
    const BlockCache& cache = d.block_cache();
    for (;;) {
        switch (walk.next(p, false)) {
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
                out.text.appendf("[%" PRIx64 ": error: %s]\n", offset, pt_error_string(walk.status()));
                out.ended();
                break;
            }
            case FlowWalk::Step::run: {
                // The time at the path's end: what the next call or return line shows.
                const uint64_t last = after, before = walk.time_before();
                if (tsc) after = walk.time_after();
                take_runs(tree, symbols, cache, p, tsc, RunTimes(p, before, after), before - last);
                if (!p.nruns && p.single.ninsn)
                    tree.run(p.single.ip, p.single.ninsn, p.single.sizes, p.single.end_class,
                             symbols.of(cache, p.single), before - last, after - before);
                if (tsc) *tsc = after;
                break;
            }
        }
    }
}

struct Printer : CallTree::Hooks {
    Lines* out;
    bool time;
    uint64_t tsc = 0;  // at the end of the run before: where the call or return was
    // The time (as "%016" PRIx64 "  ") and the indent of a line.
    void prefix(size_t depth) {
        char* p = out->text.begin_write(18 + 2 * depth);
        if (time) {
            p = put_hex16(p, tsc);
            *p++ = ' ', *p++ = ' ';
        }
        std::memset(p, ' ', 2 * depth);
        out->text.end_write(p + 2 * depth);
    }
    void call(const CallTree& t) override {
        prefix(t.depth());
        out->text.append(t.symbols().name(t.top_symbol()));
        out->text.append("() {\n");
        out->ended();
    }
    void ret(const CallTree& t, int symbol) override {
        prefix(t.depth());
        out->text.append("} /* ");
        out->text.append(t.symbols().name(symbol));
        out->text.append(" */\n");
        out->ended();
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
    Lines lines{out, {}};
    if (calls) {
        Printer printer;
        printer.out = &lines;
        printer.time = o.time;
        CallTree tree(o.symbols, printer);
        follow(walk, d, tree, lines, o.time ? &printer.tsc : nullptr);
        lines.flush();
        std::fflush(out);
        return pages.failed() ? shrank() : 0;
    }
    CallTree::Hooks none;
    CallTree tree(o.symbols, none);
    uint64_t tsc = 0;
    follow(walk, d, tree, lines, o.time ? &tsc : nullptr);
    lines.flush();
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
