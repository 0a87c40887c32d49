// Differential test: the same filter strings on the same records, decided by Debian's
// libtraceevent 1.7.1 (tep_filter_add_filter_str / tep_filter_match / tep_filter_make_string)
// and by ringscope's EventFilter; and whole -F/-v sets by libtracecmd's iteration against
// FilterSet. The oracle loads the committed traces; ringscope gets the raw record bytes and event
// types built from the oracle's parsed formats (until framework/format can parse them itself).
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>

#include <ringscope/filter.hpp>

#include "framework/format/format_catalog.hpp"
#include "oracle_trace.hpp"

// libtraceevent leaks parts of some filter trees (`x == -1` drops the comparison node).
extern "C" const char* __lsan_default_suppressions() {
    return "leak:libtraceevent.so\nleak:libtracecmd.so\nleak:__vasprintf_internal\n";
}

namespace ringscope {
namespace {

namespace fs = std::filesystem;

using filter_test::OracleContext;
using filter_test::Record;
using filter_test::Trace;

FilterResult from_tep(int r) {
    switch (r) {
        case TEP_ERRNO__FILTER_MATCH:
            return FilterResult::match;
        case TEP_ERRNO__FILTER_MISS:
            return FilterResult::miss;
        case TEP_ERRNO__FILTER_NOT_FOUND:
            return FilterResult::not_found;
        default:
            return FilterResult::error;
    }
}

// Everything libtraceevent says about one filter string on one trace.
struct OracleAnswer {
    int ret = 0;
    std::string strerror;                     // when ret != 0
    std::map<uint32_t, std::string> covered;  // type id -> tep_filter_make_string
    std::vector<uint8_t> decisions;           // FilterResult per record
};

OracleAnswer ask_in_process(const Trace& t, const std::string& text) {
    OracleAnswer a;
    tep_event_filter* f = tep_filter_alloc(t.tep());
    a.ret = tep_filter_add_filter_str(f, text.c_str());
    if (a.ret != 0) {
        char buf[8192] = {0};
        tep_filter_strerror(f, static_cast<tep_errno>(a.ret), buf, sizeof buf);
        a.strerror = buf;
    } else {
        for (const EventType* ty : t.types()) {
            const int id = static_cast<int>(ty->id);
            if (!tep_event_filtered(f, id)) continue;
            char* s = tep_filter_make_string(f, id);
            a.covered[ty->id] = s ? s : "";
            free(s);
        }
        for (const Record& r : t.records()) {
            tep_record rec = t.tep_rec(r);
            a.decisions.push_back(static_cast<uint8_t>(from_tep(tep_filter_match(f, &rec))));
        }
    }
    tep_filter_free(f);
    return a;
}

void put(std::string& out, const std::string& s) {
    const uint32_t n = static_cast<uint32_t>(s.size());
    out.append(reinterpret_cast<const char*>(&n), 4).append(s);
}
bool get(std::string_view& in, std::string& s) {
    uint32_t n;
    if (in.size() < 4) return false;
    std::memcpy(&n, in.data(), 4);
    if (in.size() - 4 < n) return false;
    s.assign(in.substr(4, n));
    in.remove_prefix(4 + n);
    return true;
}

// libtraceevent crashes or corrupts its heap on some inputs (NULL operands, `,` in the
// expression, double frees on error paths): such strings are asked in a child process, which
// sends the answer back through a pipe. nullopt when the child died.
std::optional<OracleAnswer> ask_isolated(const Trace& t, const std::string& text) {
    int fds[2];
    if (pipe(fds) != 0) return std::nullopt;
    fflush(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        // The crash report of a dying child is expected noise.
        if (FILE* null = freopen("/dev/null", "w", stderr)) (void)null;
        const OracleAnswer a = ask_in_process(t, text);
        std::string out;
        put(out, std::to_string(a.ret));
        put(out, a.strerror);
        put(out, std::to_string(a.covered.size()));
        for (const auto& [id, str] : a.covered) {
            put(out, std::to_string(id));
            put(out, str);
        }
        put(out, std::string(a.decisions.begin(), a.decisions.end()));
        for (size_t off = 0; off < out.size();) {
            const ssize_t w = write(fds[1], out.data() + off, out.size() - off);
            if (w <= 0) _exit(2);
            off += static_cast<size_t>(w);
        }
        _exit(0);
    }
    close(fds[1]);
    std::string in;
    char buf[65536];
    for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) in.append(buf, static_cast<size_t>(n));
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
    std::string_view v = in;
    OracleAnswer a;
    std::string field, id, str, count;
    if (!get(v, field) || !get(v, a.strerror) || !get(v, count)) return std::nullopt;
    a.ret = std::stoi(field);
    for (int i = 0, n = std::stoi(count); i < n; ++i) {
        if (!get(v, id) || !get(v, str)) return std::nullopt;
        a.covered[static_cast<uint32_t>(std::stoul(id))] = str;
    }
    if (!get(v, str)) return std::nullopt;
    a.decisions.assign(str.begin(), str.end());
    return a;
}

struct Stats {
    int strings = 0, parsed = 0, errors = 0, skipped = 0;
    long decisions = 0;
};

// Compares one filter string on every record: parse success, covered types, the folded tree
// (tep_filter_make_string), error message and column, and every match decision. `isolate` asks
// the oracle in a child process, for strings that may crash it.
void compare(const Trace& t, const std::string& text, Stats& st, bool compare_describe = true,
             bool isolate = false) {
    SCOPED_TRACE(t.path() + ": " + text);
    std::optional<OracleAnswer> oracle = isolate ? ask_isolated(t, text) : ask_in_process(t, text);
    if (!oracle) {
        std::cout << "libtraceevent crashes on: " << text << "\n";
        ++st.skipped;
        return;
    }
    ++st.strings;
    auto ours = EventFilter::parse(text, t.types());
    ASSERT_EQ(oracle->ret == 0, ours.has_value()) << (ours ? "" : ours.error().to_string());
    if (oracle->ret != 0) {
        ++st.errors;
        // "<expression>\n<spaces>^\n<message>" when libtraceevent pointed at a column.
        const std::string& s = oracle->strerror;
        const size_t nl1 = s.find('\n');
        const size_t nl2 = nl1 == s.npos ? s.npos : s.find('\n', nl1 + 1);
        if (nl2 != s.npos) {
            const std::string caret = s.substr(nl1 + 1, nl2 - nl1 - 1);
            const std::string message = s.substr(nl2 + 1);
            const size_t colon = text.find(':');
            const int expected_col = static_cast<int>(colon + 1 + caret.find('^') + 1);
            EXPECT_EQ(ours.error().message().substr(0, message.size()), message);
            EXPECT_EQ(ours.error().column(), expected_col) << s;
        }
        return;
    }
    ++st.parsed;
    for (const EventType* ty : t.types()) {
        const auto it = oracle->covered.find(ty->id);
        ASSERT_EQ(it != oracle->covered.end(), ours->covers(ty->id)) << ty->name;
        if (compare_describe && it != oracle->covered.end()) {
            EXPECT_EQ(it->second, ours->describe(ty->id)) << ty->name;
        }
    }
    ASSERT_EQ(oracle->decisions.size(), t.records().size());
    int reported = 0;
    for (size_t i = 0; i < t.records().size(); ++i) {
        const Record& r = t.records()[i];
        const auto want = static_cast<FilterResult>(oracle->decisions[i]);
        const FilterResult got = ours->test(t.event(r));
        ++st.decisions;
        if (want != got && reported++ < 3)
            ADD_FAILURE() << "record at " << r.offset << " (" << t.type_of(r)->name << "): oracle "
                          << int(want) << ", ringscope " << int(got);
    }
}

std::vector<std::string> trace_paths() {
    const fs::path d = RINGSCOPE_TEST_DATA_DIR;
    std::vector<std::string> out;
    for (const char* p : {"kvm/kvm-extra.dat", "kvm-agent/host-vm2.dat"})
        if (fs::exists(d / p)) out.push_back((d / p).string());
    return out;
}

// Hand-written strings: the grammar, its quirks and its errors, on the events these traces have.
// Not here: =~/!~ on a number shown as hex text (libtraceevent matches against a dangling stack
// buffer there), 'c' (it compares an address).
const char* const kHandWritten[] = {
    "kvm_exit",
    "kvm",
    "KVM_EXIT",
    "kvm/kvm_e.*",
    "k.*t",
    "kvm_exit,kvm_entry: vcpu_id == 0",
    "kvm_exit: isa == 2",
    "kvm_exit: isa == -1",
    "kvm_exit: isa == -2",
    "kvm_exit: isa - 2",
    "kvm_exit: isa & 2",
    "kvm_exit: exit_reason >> 4 && isa & 1",
    "kvm_exit: exit_reason == 0x7b || exit_reason == 0x60",
    "kvm_exit: exit_reason > 100 && exit_reason < 0x400",
    "kvm_exit: exit_reason >= 0x7b && !(exit_reason <= 0x7b)",
    "kvm_exit: isa == 2 || isa == 3 && vcpu_id == 1",
    "kvm_exit: bogus == 1",
    "kvm_exit: !(bogus == 1)",
    "kvm_exit: bogus == 1 || isa == 2",
    "kvm_exit: isa == 2 && bogus == 1",
    "kvm_exit: bogus < \"x\"",
    "kvm_exit: isa == 2 foo",
    "kvm_exit: a == 1 isa == 2",
    "kvm_exit: guest_rip == \"default_idle\"",
    "kvm_exit: exit_reason == \"0x7b\"",
    "kvm_exit: isa + \"x\"",
    "kvm_exit: isa ~ 3",
    ".*: COMM == \"CPU 0/KVM\"",
    ".*: COMM =~ \"^cpu.*kvm$\"",
    ".*: COMM !~ \"KVM\"",
    ".*: common_pid == 157 && common_preempt_count == 0",
    "kvm_pio: port == 0x70 || (port >= 0x3f8 && port <= 0x3ff)",
    "kvm_msr: !write && ecx == 0x1b",
    "sched_switch: prev_comm == \"swapper/1\" || next_comm =~ \"^rcu\"",
    "sched_switch: prev_state == 1",
    "sched_switch: prev_state & 2",
    "sched_switch: prev_pid > 5 && next_pid < 100",
    "sched_switch: prev_comm == 'swapper/0'",
    "sched: COMM == \"init\"",
    "sched_wakeup,sched_waking: target_cpu == 1",
    "sched_process_exec: filename =~ \"bin\"",
    "sched_process_exec: filename == \"/bin/cat\"",
    "irq_handler_entry: name =~ \"virtio\" || irq == 25",
    "irq/irq_handler_e.*: name != \"timer\"",
    "softirq_raise: vec == 9 || vec == 7",
    "sched_stat_runtime: runtime > 1000000",
    "sched_stat_runtime: runtime > 1000000 && comm == \"trace-cmd\"",
    "sched_switch: CPU == 1",
    "sched_switch: (prev_pid == 0 || next_pid == 0) && !(CPU == 0)",
    "sched_switch: !!(prev_pid == 0)",
    "kvm/kvm_e.*: intr_info != 0 || isa & 2 || immediate_exit == 0 && rip == \"0xffffffff816aa497\"",
    "kvm_entry: rip == \"0xffffffff816aa497\"",
    "kvm_exit/",
    "/kvm_exit",
    "kvm/",
    "kvm_exit , kvm_entry",
    "kvm_exit: isa == 08",
    "kvm_exit: isa == 2abc",
    "kvm_exit: exit_reason == 0x7B",
    "kvm_exit: info1 == 18446744073709551615",
    "kvm_exit: info1 < 99999999999999999999999",
    ".*: COMM == \"CPU 0\\/KVM\"",
    ".*: COMM =~ \"CPU 0\\/KVM\"",
    ".*: COMM == \"CPU \" \"0/KVM\"",
    "kvm_exit: exit_reason ^ 0x7b || isa * 0 || exit_reason % 7 || exit_reason / 3",
    "kvm_exit: isa == 1 && isa == 2 == 3",
    "kvm_exit: exit_reason << 60",
    "kvm_exit: (isa == 2) && (exit_reason == 0x7b || (exit_reason != 0x60 && !(isa != 2)))",
    "kvm_exit: isa == 2 && !bogus == 1",
    "kvm_exit: !(bogus == 1) || isa == 5",
    "kvm_exit: isa == 1 isa",
    "kvm_exit,",
    "kvm_exit: isa =",
    "kvm_exit: isa -> 1",
    "kvm_exit: isa ++ 1",
    "kvm_exit: isa &= 1",
    "kvm_exit: isa == 1 || !",
    // errors
    "kvm_exit: isa",
    "kvm_exit:",
    "kvm_exit: isa >>= 1",
    "kvm_exit: isa = 1",
    "kvm_exit: isa == vcpu_id",
    "kvm_exit: isa == bogus",
    "kvm_exit: isa < \"x\"",
    "kvm_exit: isa =~ 3",
    "kvm_exit: COMM =~ \"[\"",
    "kvm_exit: isa (",
    "kvm_exit: isa == 1 (",
    "kvm_exit: (isa == 2",
    "kvm_exit: isa == 2)",
    "kvm_exit: isa == 1, isa == 2",
    "kvm_exit: 1 == isa",
    "kvm_exit: && isa == 1",
    "kvm_exit: isa == 1 == 2",
    "kvm_exit: (isa & 1) == 0",
    "kvm_exitt",
    "sched_switch,kvm_exit: prev_pid < \"x\"",
    "sched_switch: prev_pid =~ 1",
};

TEST(FilterOracle, HandWrittenFiltersDecideAsLibtraceevent) {
    const auto paths = trace_paths();
    if (paths.empty()) GTEST_SKIP() << "no committed traces";
    for (const auto& p : paths) {
        Trace t(p);
        ASSERT_TRUE(t.ok()) << p;
        Stats st;
        for (const char* s : kHandWritten) {
            // Our 'c' compares the character; libtraceevent compares an address (and prints it).
            const bool squote = std::strchr(s, '\'') != nullptr;
            const bool string_in_exp = std::strstr(s, "+ \"") != nullptr;
            if (squote) continue;
            std::string text(s);
            compare(t, text, st, !string_in_exp, /*isolate=*/true);
        }
        std::cout << p << ": " << st.strings << " strings, " << st.parsed << " parsed, " << st.errors
                  << " errors, " << st.skipped << " crash the oracle, " << st.decisions << " decisions\n";
        EXPECT_GT(st.parsed, 10);
    }
}

// Random filters over the fields each trace really has, with values taken from its records.
class Generator {
  public:
    Generator(const Trace& t, uint32_t seed) : t_(t), rng_(seed) {
        for (const Record& r : t.records())
            if (const EventType* ty = t.type_of(r)) samples_[ty->id].push_back(&r);
        for (const EventType* ty : t.types())
            if (samples_.count(ty->id)) present_.push_back(ty);
    }

    std::string filter() {
        const EventType* ty = present_[pick(present_.size())];
        std::string events;
        switch (pick(4)) {
            case 0:
                events = ty->name;
                break;
            case 1:
                events = ty->system + "/" + ty->name;
                break;
            case 2:
                events = ty->system;
                break;
            default:
                events = ty->name + "," + present_[pick(present_.size())]->name;
                break;
        }
        return events + ": " + expr(ty, 0);
    }

  private:
    size_t pick(size_t n) { return n ? rng_() % n : 0; }

    std::string expr(const EventType* ty, int depth) {
        const int k = depth > 2 ? 0 : static_cast<int>(pick(6));
        switch (k) {
            case 1:
                return expr(ty, depth + 1) + " && " + expr(ty, depth + 1);
            case 2:
                return expr(ty, depth + 1) + " || " + expr(ty, depth + 1);
            case 3:
                return "(" + expr(ty, depth + 1) + ")";
            case 4:
                return "!(" + expr(ty, depth + 1) + ")";
            default:
                return atom(ty);
        }
    }

    std::string atom(const EventType* ty) {
        const Record* r = samples_[ty->id][pick(samples_[ty->id].size())];
        const Event ev = t_.event(*r);
        const int which = static_cast<int>(pick(12));
        if (which == 0) return "bogus " + std::string(pick(2) ? "== 1" : "!= \"x\"");
        if (which == 1)
            return "COMM " + std::string(pick(2) ? "== \"" : "=~ \"^") + std::string(ev.comm()) + "\"";
        if (which == 2) return "CPU == " + std::to_string(pick(3));
        std::vector<const FieldInfo*> fields;
        for (const auto& f : ty->common_fields) fields.push_back(&f);
        for (const auto& f : ty->fields) fields.push_back(&f);
        const FieldInfo* f = fields[pick(fields.size())];
        const FieldHandle h = ty->handle(f->name);
        if (f->flags & kFieldString) {
            const std::string v(ev.str(h));
            switch (pick(4)) {
                case 0:
                    return f->name + " == \"" + v + "\"";
                case 1:
                    return f->name + " != \"" + v + "\"";
                case 2:
                    return f->name + " =~ \"^" + v.substr(0, v.size() / 2) + "\"";
                default:
                    return f->name + " !~ \"" + v.substr(v.size() / 2) + "$\"";
            }
        }
        if ((f->flags & (kFieldArray | kFieldDynamic | kFieldRelLoc)) || f->size > 8) return "bogus == 2";
        const uint64_t v = static_cast<uint64_t>(ev.integer(h));
        static const char* const kOps[] = {"==", "!=", "<", "<=", ">", ">="};
        switch (pick(5)) {
            case 0:
                return f->name + " & " + std::to_string(pick(2) ? v : (1u << pick(8)));
            case 1:
                return f->name + " == 0x" + [&] {
                    char b[32];
                    snprintf(b, sizeof b, "%llx", (unsigned long long)v);
                    return std::string(b);
                }();
            case 2:
                return f->name + " " + kOps[pick(6)] + " " + std::to_string(v + pick(3) - 1);
            default:
                return f->name + " " + kOps[pick(6)] + " " + std::to_string(v);
        }
    }

    const Trace& t_;
    std::mt19937 rng_;
    std::map<uint32_t, std::vector<const Record*>> samples_;
    std::vector<const EventType*> present_;
};

TEST(FilterOracle, GeneratedFiltersDecideAsLibtraceevent) {
    const auto paths = trace_paths();
    if (paths.empty()) GTEST_SKIP() << "no committed traces";
    for (const auto& p : paths) {
        Trace t(p);
        ASSERT_TRUE(t.ok()) << p;
        Generator gen(t, 2026);
        Stats st;
        for (int i = 0; i < 150; ++i) {
            const std::string text = gen.filter();
            if (getenv("FILTER_SHOW")) std::cout << text << "\n";  // to see what is generated
            compare(t, text, st);
        }
        std::cout << p << ": " << st.strings << " generated strings, " << st.parsed << " parsed, "
                  << st.decisions << " decisions\n";
        EXPECT_GT(st.parsed, 100);
    }
}

// The same comparison with event types from ringscope's own format parser (framework/format) on
// the kvm_exit/kvm_entry format files of kvm-extra.dat: the field flags it chooses must lead to
// the same decisions.
TEST(FilterOracle, FormatCatalogTypesDecideAsLibtraceevent) {
    const fs::path dir = fs::path(RINGSCOPE_TEST_DATA_DIR) / "kvm";
    if (!fs::exists(dir / "kvm-extra.dat")) GTEST_SKIP() << "no kvm-extra.dat";
    Trace t((dir / "kvm-extra.dat").string());
    ASSERT_TRUE(t.ok());
    format::FormatCatalog catalog(8, false);
    for (const char* name : {"format-6.1-kvm_exit", "format-6.1-kvm_entry"}) {
        std::ifstream in(dir / name);
        std::stringstream text;
        text << in.rdbuf();
        auto added = catalog.add_format(text.str(), "kvm");
        ASSERT_TRUE(added.has_value()) << name << ": " << added.error().to_string();
    }
    const std::vector<const EventType*> types = catalog.types();
    const char* const filters[] = {
        "kvm_exit: isa == 2 && exit_reason == 0x7b",
        "kvm_exit: exit_reason > 0x60 || guest_rip == \"0xffffffff816aa497\"",
        "kvm_exit: guest_rip == \"default_idle\" || info1 & 1",
        "kvm_entry: vcpu_id == 0 && !(rip < 0xffffffff81000000)",
        "kvm_entry,kvm_exit: COMM == \"CPU 0/KVM\" && bogus == 1 || common_pid == 157",
        "kvm/kvm_e.*: intr_info != 0 || isa & 2 || immediate_exit == 0 && rip == \"0xffffffff816aa497\"",
    };
    long decisions = 0;
    for (const char* text : filters) {
        SCOPED_TRACE(text);
        tep_event_filter* f = tep_filter_alloc(t.tep());
        ASSERT_EQ(tep_filter_add_filter_str(f, text), 0);
        auto ours = EventFilter::parse(text, types);
        ASSERT_TRUE(ours.has_value()) << ours.error().to_string();
        int reported = 0;
        for (const Record& r : t.records()) {
            uint16_t id;
            std::memcpy(&id, r.data.data(), 2);
            const EventType* ty = catalog.by_id(id);
            if (!ty) continue;  // only the two formats we have
            tep_record rec = t.tep_rec(r);
            const FilterResult want = from_tep(tep_filter_match(f, &rec));
            const FilterResult got = ours->test(Event(ty, t.context(), r.data, r.ts, r.cpu));
            ++decisions;
            if (want != got && reported++ < 3)
                ADD_FAILURE() << "record at " << r.offset << ": oracle " << int(want) << ", ringscope "
                              << int(got);
        }
        tep_filter_free(f);
    }
    EXPECT_EQ(decisions, 6 * 680);
}

// -F/-v sets: which records libtracecmd's iteration delivers with tracecmd_filter_add, against
// FilterSet::accept over the same records in the same order.
TEST(FilterOracle, FilterSetsSelectAsTraceCmd) {
    const auto paths = trace_paths();
    if (paths.empty()) GTEST_SKIP() << "no committed traces";
    using Set = std::vector<std::pair<const char*, bool>>;
    const std::vector<Set> sets = {
        {{"kvm_exit", false}},
        {{"kvm_exit", true}},
        {{"kvm_exit", false}, {"kvm_entry", false}},
        {{"kvm_exit", false}, {"kvm_exit: isa == 2", true}},
        {{".*: COMM =~ \"KVM\"", false}, {"kvm_exit: exit_reason == 0x7b", true}},
        {{"sched_switch: prev_pid == 0", false}, {"irq", false}, {"sched: COMM == \"init\"", true}},
        {{"softirq_raise", true}, {"sched_stat_runtime", true}},
        {{"sched_switch: prev_pid + \"x\"", false}, {"sched_wakeup", false}},
        {{"sched_switch: prev_pid + \"x\"", true}},
    };
    for (const auto& p : paths) {
        Trace t(p);
        ASSERT_TRUE(t.ok()) << p;
        for (const Set& set : sets) {
            std::string label;
            for (const auto& [s, neg] : set) label += std::string(neg ? " -v" : "") + " -F '" + s + "'";
            SCOPED_TRACE(p + ":" + label);
            tracecmd_input* h = tracecmd_open(p.c_str(), 0);
            ASSERT_NE(h, nullptr);
            FilterSet ours;
            bool oracle_ok = true;
            for (const auto& [s, neg] : set) {
                const bool a = tracecmd_filter_add(h, s, neg) != nullptr;
                const bool b = static_cast<bool>(ours.add(s, neg, t.types()));
                ASSERT_EQ(a, b);
                oracle_ok = oracle_ok && a;
            }
            if (!oracle_ok) {
                tracecmd_close(h);
                continue;
            }
            std::vector<uint64_t> want;
            tracecmd_iterate_events(
                h, nullptr, 0,
                [](tracecmd_input*, tep_record* rec, int, void* d) {
                    static_cast<std::vector<uint64_t>*>(d)->push_back(rec->offset);
                    return 0;
                },
                &want);
            tracecmd_close(h);
            std::vector<uint64_t> got;
            for (const Record& r : t.records())
                if (ours.accept(t.event(r))) got.push_back(r.offset);
            EXPECT_EQ(want.size(), got.size());
            EXPECT_TRUE(want == got);
        }
    }
}

}  // namespace
}  // namespace ringscope
