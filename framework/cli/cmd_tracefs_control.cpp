// `ringscope stop`, `reset`, `stat` (trace-cmd's), the shared option walk, and the recovery of
// journals left by killed runs.
#include <cstdio>
#include <cstring>

#include <ringscope/tracefs.hpp>

#include "framework/capture/state_journal.hpp"
#include "framework/capture/tracefs_admin.hpp"
#include "framework/cli/tracefs_commands.hpp"

namespace ringscope::cli {

void recover_tracing_state(CliContext& ctx) {
    auto r = capture::recover_journals(stderr, false);
    if (!r)
        ctx.error("the tracing state left by an earlier run could not be put back completely: " +
                  r.error().to_string() + " (ringscope reset --restore retries)");
}

int walk_options(CliContext& ctx, const char* command, const std::vector<std::string>& args, const char* spec,
                 const std::vector<std::string>& longs, const char* help,
                 const std::function<int(const OptionEvent&)>& fn, std::vector<std::string>* rest) {
    auto bad = [&](const std::string& why) {
        ctx.error(std::string(command) + ": " + why + " (see ringscope " + command + " --help)");
        return kExitUsage;
    };
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "-h" || a == "--help") {
            std::printf("%s", help);
            return kExitOk;
        }
        if (a.size() < 2 || a[0] != '-') {
            if (!rest) return bad("unexpected argument '" + a + "'");
            rest->push_back(a);
            continue;
        }
        if (a[1] == '-') {
            const size_t eq = a.find('=');
            const std::string key = a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
            OptionEvent ev{key, {}, false};
            bool known = false;
            for (const auto& l : longs) {
                if (l == key) known = true;
                if (l == key + "=") {
                    known = ev.has_value = true;
                    if (eq != std::string::npos)
                        ev.value = a.substr(eq + 1);
                    else if (i + 1 < args.size())
                        ev.value = args[++i];
                    else
                        return bad("--" + key + " needs a value");
                }
            }
            if (!known) return bad("unrecognised option '" + a + "'");
            if (int rc = fn(ev); rc >= 0) return rc;
            continue;
        }
        for (size_t k = 1; k < a.size(); ++k) {
            const char* p = std::strchr(spec, a[k]);
            if (!p || a[k] == ':') return bad(std::string("unrecognised option '-") + a[k] + "'");
            OptionEvent ev{std::string(1, a[k]), {}, false};
            if (p[1] == ':') {
                const bool optional = p[2] == ':';
                if (k + 1 < a.size()) {
                    ev.value = a.substr(k + 1);
                    ev.has_value = true;
                } else if (i + 1 < args.size() && (!optional || args[i + 1][0] != '-')) {
                    ev.value = args[++i];
                    ev.has_value = true;
                } else if (!optional) {
                    return bad(std::string("option -") + a[k] + " needs a value");
                }
                if (int rc = fn(ev); rc >= 0) return rc;
                break;
            }
            if (int rc = fn(ev); rc >= 0) return rc;
        }
    }
    return -1;
}

namespace {

Expected<std::string> tracefs_root() {
    return tracefs::find_tracefs(true);  // mounted on /sys/kernel/tracing when missing, as libtracefs does
}

int fail(CliContext& ctx, const char* command, const Error& e) {
    ctx.error(std::string(command) + ": " + e.to_string());
    return kExitRuntime;
}

// The buffers -B/-a/-t name (trace-cmd's rule: -B or -a leave the top buffer out unless -t).
struct BufferChoice {
    std::vector<std::string> names;
    bool all = false, top = false;
    Expected<std::vector<tracefs::Instance>> resolve(const std::string& root) const {
        std::vector<tracefs::Instance> out;
        if (top || (names.empty() && !all)) {
            auto t = tracefs::Instance::top(root);
            if (!t) return std::move(t).error();
            out.push_back(*t);
        }
        std::vector<std::string> want = names;
        if (all) {
            auto n = capture::instance_names(root);
            if (n) want.insert(want.end(), n->begin(), n->end());
        }
        for (const auto& n : want) {
            auto i = tracefs::Instance::open(n, root);
            if (!i) return std::move(i).error();
            out.push_back(*i);
        }
        return out;
    }
};

}  // namespace

int run_stop(CliContext& ctx, const std::vector<std::string>& args) {
    BufferChoice b;
    const int rc =
        walk_options(ctx, "stop", args, "B:at", {},
                     "usage: ringscope stop [-B NAME ...] [-a] [-t]\n\nTurns tracing off (tracing_on = 0) in "
                     "the top buffer, or the -B instances, or all (-a); -t adds the top one.\n",
                     [&](const OptionEvent& e) {
                         if (e.name == "B") b.names.push_back(e.value);
                         if (e.name == "a") b.all = true;
                         if (e.name == "t") b.top = true;
                         return -1;
                     });
    if (rc >= 0) return rc;
    recover_tracing_state(ctx);
    auto root = tracefs_root();
    if (!root) return fail(ctx, "stop", root.error());
    auto bufs = b.resolve(*root);
    if (!bufs) return fail(ctx, "stop", bufs.error());
    for (const auto& in : *bufs)
        if (Status st = in.set_tracing_on(false); !st) return fail(ctx, "stop", st.error());
    return kExitOk;
}

namespace {

// A buffer reset names, with what is done to it. Order matters, as trace-cmd's: -b and -d apply
// to the buffer named last (-B, -a or -t).
struct ResetTarget {
    std::string name;  // "" = top
    bool all = false;
    capture::ResetSpec spec;
    bool remove = false;
};

struct ResetArgs {
    std::vector<ResetTarget> targets{{}};  // the first: the top buffer, before any -B, -a, -t
    bool restore = false, named = false, top = false;
};

constexpr const char* kResetHelp =
    "usage: ringscope reset [-b KB] [-B NAME [-d]] [-a [-d]] [-t] | --restore\n\n"
    "Turns all tracing off and back to the kernel's defaults (tracer nop, events off, "
    "filters,\n"
    "triggers and pid lists cleared, CPU mask all, clock local, buffer emptied, tracing on), "
    "as\n"
    "trace-cmd reset. -b KB resizes the buffer named before it; -d removes the instances "
    "named\n"
    "before it. --restore instead puts back what `start` and killed runs changed (their "
    "journals).\n";

// Returns -1 to go on, or the exit code to return now.
int parse_reset_args(CliContext& ctx, const std::vector<std::string>& args, ResetArgs& r) {
    return walk_options(ctx, "reset", args, "b:B:atd", {"restore"}, kResetHelp, [&](const OptionEvent& e) {
        if (e.name == "restore") r.restore = true;
        if (e.name == "B") {
            r.named = true;
            r.targets.push_back({e.value, false, {}, false});
        }
        if (e.name == "a") {
            r.named = true;
            r.targets.push_back({"", true, {}, false});
        }
        if (e.name == "t") {
            r.top = true;
            r.targets.push_back({});
        }
        if (e.name == "b") {
            char* end = nullptr;
            const long kb = std::strtol(e.value.c_str(), &end, 10);
            r.targets.back().spec.buffer_kb = static_cast<uint64_t>(kb <= 1 || !end || *end ? 1 : kb);
        }
        if (e.name == "d") {
            if (r.targets.back().name.empty() && !r.targets.back().all) {
                ctx.error("reset: Can not delete top level buffer");
                return kExitUsage;
            }
            r.targets.back().remove = true;
        }
        return -1;
    });
}

// The buffers `t` names: the top one, an instance, or with -a every instance there is.
Expected<std::vector<tracefs::Instance>> target_buffers(const std::string& root, const ResetTarget& t) {
    std::vector<std::string> names;
    if (t.all) {
        if (auto n = capture::instance_names(root)) names = *n;
    } else if (!t.name.empty()) {
        names.push_back(t.name);
    }
    std::vector<tracefs::Instance> bufs;
    if (!t.all && t.name.empty()) {
        if (auto top_in = tracefs::Instance::top(root)) bufs.push_back(*top_in);
    }
    for (const auto& n : names) {
        auto in = tracefs::Instance::open(n, root);
        if (!in) return in.error();
        bufs.push_back(*in);
    }
    return bufs;
}

}  // namespace

int run_reset(CliContext& ctx, const std::vector<std::string>& args) {
    ResetArgs r;
    if (int rc = parse_reset_args(ctx, args, r); rc >= 0) return rc;
    if (r.restore) {
        auto n = capture::recover_journals(stderr, true);
        if (!n) return fail(ctx, "reset --restore", n.error());
        if (*n == 0) std::fprintf(stderr, "ringscope: no tracing state to restore\n");
        return kExitOk;
    }
    recover_tracing_state(ctx);
    auto root = tracefs_root();
    if (!root) return fail(ctx, "reset", root.error());
    Status first;
    for (size_t i = 0; i < r.targets.size(); ++i) {
        const ResetTarget& t = r.targets[i];
        if (i == 0 && (r.named || r.top) && t.spec.buffer_kb == 0)
            continue;  // -B/-a leave the top out, -t adds it
        auto bufs = target_buffers(*root, t);
        if (!bufs) return fail(ctx, "reset", bufs.error());
        for (auto& in : *bufs) {
            Status st = capture::reset_buffer(in, t.spec);
            if (st && t.remove && !in.is_top()) st = in.destroy();
            if (!st && first) first = st;
        }
    }
    // What `start` left is reset now: its journals no longer describe what to put back.
    (void)capture::discard_started_journals();
    if (!first) return fail(ctx, "reset", first.error());
    return kExitOk;
}

int run_stat(CliContext& ctx, const std::vector<std::string>& args) {
    BufferChoice b;
    bool options = false;
    const int rc = walk_options(
        ctx, "stat", args, "B:to", {},
        "usage: ringscope stat [-B NAME ...] [-t] [-o]\n\nWhat is set now in tracefs, as trace-cmd "
        "stat prints it; -o adds every trace option.\n",
        [&](const OptionEvent& e) {
            if (e.name == "B") b.names.push_back(e.value);
            if (e.name == "t") b.top = true;
            if (e.name == "o") options = true;
            return -1;
        });
    if (rc >= 0) return rc;
    recover_tracing_state(ctx);
    auto root = tracefs_root();
    if (!root) return fail(ctx, "stat", root.error());
    auto bufs = b.resolve(*root);
    if (!bufs) return fail(ctx, "stat", bufs.error());
    std::string out;
    for (size_t i = 0; i < bufs->size(); ++i) {
        const auto& in = (*bufs)[i];
        if (!in.is_top()) {
            if (i > 0) out += "---------------\n";
            out += "Instance: " + in.name() + "\n";
        }
        out += capture::stat_text(in, options);
    }
    if (FILE* f = std::fopen("/proc/sys/kernel/stack_tracer_enabled", "r")) {
        int on = 0;
        if (std::fscanf(f, "%d", &on) == 1 && on > 0) out += "Stack tracing is enabled\n\n";
        std::fclose(f);
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    return std::fflush(stdout) == 0 ? kExitOk : kExitRuntime;
}

}  // namespace ringscope::cli
