// The filter grammar on hand-built event types: every operator, the field rules, libtraceevent's
// quirks (pinned against `trace-cmd report -F`, see framework/filter/README.md), every error with
// its column, FilterSet's -F/-v rules, and garbage input.
#include <gtest/gtest.h>

#include <deque>
#include <random>

#include <ringscope/filter.hpp>

#include "filter_test_support.hpp"

namespace ringscope {
namespace {

using filter_test::common_fields;
using filter_test::field;
using filter_test::Payload;

class FilterGrammar : public ::testing::Test {
  protected:
    void SetUp() override {
        sched_switch_.id = 300;
        sched_switch_.system = "sched";
        sched_switch_.name = "sched_switch";
        sched_switch_.common_fields = common_fields();
        sched_switch_.fields = {
            field("prev_comm", "char[16]", 8, 16, kFieldArray | kFieldString),
            field("prev_pid", "pid_t", 24, 4, kFieldSigned),
            field("prev_prio", "int", 28, 4, kFieldSigned),
            field("prev_state", "long", 32, 8, kFieldSigned | kFieldLong),
            field("next_comm", "char[16]", 40, 16, kFieldArray | kFieldString),
            field("next_pid", "pid_t", 56, 4, kFieldSigned),
            field("next_prio", "int", 60, 4, kFieldSigned),
        };
        sched_wakeup_.id = 301;
        sched_wakeup_.system = "sched";
        sched_wakeup_.name = "sched_wakeup";
        sched_wakeup_.common_fields = common_fields();
        sched_wakeup_.fields = {field("comm", "char[16]", 8, 16, kFieldArray | kFieldString),
                                field("pid", "pid_t", 24, 4, kFieldSigned),
                                field("prio", "int", 28, 4, kFieldSigned),
                                field("target_cpu", "int", 32, 4, kFieldSigned)};
        irq_.id = 200;
        irq_.system = "irq";
        irq_.name = "irq_handler_entry";
        irq_.common_fields = common_fields();
        irq_.fields = {field("irq", "int", 8, 4, kFieldSigned),
                       field("name", "__data_loc char[]", 12, 4, kFieldDynamic | kFieldString | kFieldArray)};
        kvm_exit_.id = 1440;
        kvm_exit_.system = "kvm";
        kvm_exit_.name = "kvm_exit";
        kvm_exit_.common_fields = common_fields();
        kvm_exit_.fields = {field("exit_reason", "unsigned int", 8, 4, 0),
                            field("guest_rip", "unsigned long", 16, 8, kFieldLong),
                            field("isa", "u32", 24, 4, 0), field("info1", "u64", 32, 8, 0)};
        rel_.id = 500;
        rel_.system = "test";
        rel_.name = "rel_event";
        rel_.common_fields = common_fields();
        rel_.fields = {field("msg", "__rel_loc char[]", 8, 4, kFieldRelLoc | kFieldString | kFieldArray)};
        stack_.id = 4;
        stack_.system = "ftrace";
        stack_.name = "kernel_stack";
        stack_.common_fields = common_fields();
        stack_.fields = {field("size", "int", 8, 4, kFieldSigned)};
        for (EventType* t : {&sched_switch_, &sched_wakeup_, &irq_, &kvm_exit_, &rel_, &stack_}) {
            t->finalize();
            types_.push_back(t);
        }
        ctx_.register_comm(100, "bash");
        ctx_.register_comm(200, "CPU 0/KVM");
        ctx_.resolvers_.define(0xffffffff81000000, "startup_64");
        ctx_.resolvers_.define(0xffffffff816aa000, "default_idle");
    }

    Event make(const EventType& t, std::vector<uint8_t>& bytes, int cpu = 1) {
        return Event(&t, &ctx_, bytes, 1000, cpu);
    }
    std::vector<uint8_t>& switch_bytes(std::string_view prev_comm, int32_t prev_pid, int64_t prev_state,
                                       std::string_view next_comm, int32_t next_pid,
                                       int32_t common_pid = 100) {
        Payload p(64);
        p.put<uint16_t>(0, uint16_t(sched_switch_.id)).put<int32_t>(4, common_pid);
        p.str(8, prev_comm).put<int32_t>(24, prev_pid).put<int32_t>(28, 120).put<int64_t>(32, prev_state);
        p.str(40, next_comm).put<int32_t>(56, next_pid).put<int32_t>(60, 120);
        storage_.push_back(std::move(p.bytes()));
        return storage_.back();
    }
    std::vector<uint8_t>& irq_bytes(int32_t irq, std::string_view name, bool nul = true) {
        Payload p(16 + name.size() + 1);
        const uint32_t len = uint32_t(name.size() + (nul ? 1 : 0));
        p.put<uint16_t>(0, uint16_t(irq_.id)).put<int32_t>(4, 100).put<int32_t>(8, irq);
        p.put<uint32_t>(12, (len << 16) | 16).str(16, name);
        storage_.push_back(std::move(p.bytes()));
        return storage_.back();
    }
    std::vector<uint8_t>& kvm_bytes(uint32_t reason, uint64_t rip, uint32_t isa, int32_t pid = 200) {
        Payload p(40);
        p.put<uint16_t>(0, uint16_t(kvm_exit_.id)).put<int32_t>(4, pid).put<uint32_t>(8, reason);
        p.put<uint64_t>(16, rip).put<uint32_t>(24, isa).put<uint64_t>(32, 7);
        storage_.push_back(std::move(p.bytes()));
        return storage_.back();
    }

    EventFilter parse(std::string_view text) {
        auto f = EventFilter::parse(text, types_);
        EXPECT_TRUE(f.has_value()) << text << ": " << (f ? "" : f.error().to_string());
        if (!f) return EventFilter();
        return std::move(*f);
    }
    FilterResult run(std::string_view text, const Event& ev) { return parse(text).test(ev); }
    Error parse_error(std::string_view text) {
        auto f = EventFilter::parse(text, types_);
        EXPECT_FALSE(f.has_value()) << text << " parsed";
        return f ? Error() : f.error();
    }
    std::string describe(std::string_view text, const EventType& t) { return parse(text).describe(t.id); }

    EventType sched_switch_, sched_wakeup_, irq_, kvm_exit_, rel_, stack_;
    std::vector<const EventType*> types_;
    filter_test::StubContext ctx_;
    std::deque<std::vector<uint8_t>> storage_;
};

constexpr auto M = FilterResult::match;
constexpr auto X = FilterResult::miss;
constexpr auto N = FilterResult::not_found;
constexpr auto E = FilterResult::error;

TEST_F(FilterGrammar, EventPartSelectsTypes) {
    auto ids = [&](std::string_view text) { return parse(text).type_ids(); };
    EXPECT_EQ(ids("sched_switch"), (std::vector<uint32_t>{300}));
    EXPECT_EQ(ids("sched"), (std::vector<uint32_t>{300, 301}));  // a bare pattern matches systems too
    EXPECT_EQ(ids("sched/sched_w.*"), (std::vector<uint32_t>{301}));
    EXPECT_EQ(ids("SCHED_SWITCH"), (std::vector<uint32_t>{300}));  // case-insensitive
    EXPECT_EQ(ids(" irq , sched_switch "), (std::vector<uint32_t>{200, 300}));
}

TEST_F(FilterGrammar, EventPartErrors) {
    Error e = parse_error("sched_sw");  // anchored: no partial names
    EXPECT_EQ(e.code(), Errc::parse);
    EXPECT_EQ(e.message(), "no event found for 'sched_sw'");
    EXPECT_EQ(e.column(), 1);
    e = parse_error("irq,,sched_switch");
    EXPECT_EQ(e.message(), "no filter found");
    EXPECT_EQ(e.column(), 5);
    e = parse_error("irq,sched/[");
    EXPECT_EQ(e.message(), "invalid event name '['");
    EXPECT_EQ(e.column(), 11);
    // There is no "all events" form: an expression alone is an event pattern.
    e = parse_error("common_pid > 0");
    EXPECT_EQ(e.message(), "no event found for 'common_pid > 0'");
    EXPECT_EQ(parse_error("").message(), "no filter found");
}

TEST_F(FilterGrammar, NoExpressionMatchesEveryEventOfTheTypes) {
    auto& b = switch_bytes("bash", 100, 1, "sleep", 5);
    EXPECT_EQ(run("sched_switch", make(sched_switch_, b)), M);
    EXPECT_EQ(run("irq", make(sched_switch_, b)), N);
    EXPECT_EQ(describe("sched_switch", sched_switch_), "TRUE");
}

TEST_F(FilterGrammar, NumericComparisons) {
    auto ev = make(sched_switch_, switch_bytes("bash", 100, 1, "sleep", 5));
    EXPECT_EQ(run("sched_switch: prev_pid == 100", ev), M);
    EXPECT_EQ(run("sched_switch: prev_pid != 100", ev), X);
    EXPECT_EQ(run("sched_switch: prev_pid < 101", ev), M);
    EXPECT_EQ(run("sched_switch: prev_pid <= 100", ev), M);
    EXPECT_EQ(run("sched_switch: prev_pid > 100", ev), X);
    EXPECT_EQ(run("sched_switch: prev_pid >= 100", ev), M);
    EXPECT_EQ(run("sched_switch: prev_pid == 0x64", ev), M);
    EXPECT_EQ(run("sched_switch: prev_pid == 0144", ev), M);  // strtoull base 0: octal
    EXPECT_EQ(run("sched_switch:prev_pid==100", ev), M);
    EXPECT_EQ(run("sched_switch: common_pid == 100 && CPU == 1", ev), M);
    EXPECT_EQ(run("sched_switch: CPU == 2", ev), X);
}

TEST_F(FilterGrammar, ComparisonsAreUnsigned64Bit) {
    auto ev = make(sched_switch_, switch_bytes("bash", -1, 1, "sleep", 5));
    EXPECT_EQ(run("sched_switch: prev_pid > 5", ev), M);  // -1 sign-extended, compared unsigned
    EXPECT_EQ(run("sched_switch: prev_pid == 0xffffffffffffffff", ev), M);
    EXPECT_EQ(run("sched_switch: prev_pid < 0", ev), X);
}

TEST_F(FilterGrammar, MinusIsAnOperatorSoNegativeNumbersSubtract) {
    // `x == -1` is `x - 1` (non-zero test): trace-cmd report -F 'kvm_exit: isa == -1' shows every
    // kvm_exit with isa != 1.
    EXPECT_EQ(describe("kvm_exit: isa == -1", kvm_exit_), "isa - 1");
    EXPECT_EQ(run("kvm_exit: isa == -1", make(kvm_exit_, kvm_bytes(1, 0, 2))), M);
    EXPECT_EQ(run("kvm_exit: isa == -2", make(kvm_exit_, kvm_bytes(1, 0, 2))), X);
}

TEST_F(FilterGrammar, BitAndArithmeticAreNonZeroTests) {
    auto ev = make(kvm_exit_, kvm_bytes(0x7b, 0, 2));
    EXPECT_EQ(run("kvm_exit: isa & 2", ev), M);
    EXPECT_EQ(run("kvm_exit: isa & 1", ev), X);
    EXPECT_EQ(run("kvm_exit: exit_reason >> 4", ev), M);
    EXPECT_EQ(run("kvm_exit: exit_reason ^ 0x7b", ev), X);
    EXPECT_EQ(run("kvm_exit: exit_reason % 3", ev), X);  // 123 % 3 == 0
    EXPECT_EQ(run("kvm_exit: exit_reason * 0", ev), X);
    EXPECT_EQ(run("kvm_exit: exit_reason | 0", ev), M);
    EXPECT_EQ(run("kvm_exit: isa + 1 && exit_reason == 0x7b", ev), M);
    EXPECT_EQ(describe("kvm_exit: isa & 2", kvm_exit_), "isa & 2");
}

TEST_F(FilterGrammar, AndOrHaveEqualPrecedenceLeftToRight) {
    auto ev = make(kvm_exit_, kvm_bytes(1, 0, 2));
    // (isa == 2 || isa == 3) && exit_reason == 9: trace-cmd report shows no event for this.
    EXPECT_EQ(run("kvm_exit: isa == 2 || isa == 3 && exit_reason == 9", ev), X);
    EXPECT_EQ(run("kvm_exit: isa == 2 || (isa == 3 && exit_reason == 9)", ev), M);
    EXPECT_EQ(describe("kvm_exit: isa == 2 || isa == 3 && exit_reason == 9", kvm_exit_),
              "((isa == 2) || (isa == 3)) && (exit_reason == 9)");
}

TEST_F(FilterGrammar, NotAndParentheses) {
    auto ev = make(kvm_exit_, kvm_bytes(1, 0, 2));
    EXPECT_EQ(run("kvm_exit: !isa == 2", ev), X);
    EXPECT_EQ(run("kvm_exit: !(isa == 3)", ev), M);
    EXPECT_EQ(run("kvm_exit: !(isa == 3) && !(exit_reason == 2)", ev), M);
    EXPECT_EQ(run("kvm_exit: ((isa == 2))", ev), M);
    EXPECT_EQ(run("kvm_exit: !!(isa == 2)", ev), M);
    EXPECT_EQ(describe("kvm_exit: !(isa == 3) || exit_reason == 1", kvm_exit_),
              "(!(isa == 3)) || (exit_reason == 1)");
}

TEST_F(FilterGrammar, MissingFieldsFold) {
    EXPECT_EQ(describe("kvm_exit: bogus == 1", kvm_exit_), "FALSE");
    EXPECT_EQ(describe("kvm_exit: !(bogus == 1)", kvm_exit_), "TRUE");
    EXPECT_EQ(describe("kvm_exit: isa == 1 || bogus == 2", kvm_exit_), "isa == 1");
    EXPECT_EQ(describe("kvm_exit: bogus == 2 || isa == 1", kvm_exit_), "isa == 1");
    EXPECT_EQ(describe("kvm_exit: isa == 1 && bogus == 2", kvm_exit_), "FALSE");
    EXPECT_EQ(describe("kvm_exit: !(bogus == 2) && isa == 1", kvm_exit_), "isa == 1");
    EXPECT_EQ(describe("kvm_exit: bogus == \"x\"", kvm_exit_), "FALSE");
    EXPECT_EQ(describe("kvm_exit: bogus < \"x\"", kvm_exit_), "FALSE");  // no type check without a field
    EXPECT_EQ(describe("kvm_exit: bogus & 1", kvm_exit_), "FALSE");
    EXPECT_EQ(describe("kvm_exit: bogus ==", kvm_exit_), "FALSE");  // never looks at the operand
    // One string, several types: each gets its own program.
    auto f = parse("sched_switch,irq_handler_entry: prev_pid == 1 || irq == 2");
    EXPECT_EQ(f.describe(300), "prev_pid == 1");
    EXPECT_EQ(f.describe(200), "irq == 2");
    EXPECT_EQ(f.describe(1440), "");
}

TEST_F(FilterGrammar, StrayItemsAreIgnoredAndALaterComparisonWins) {
    EXPECT_EQ(describe("kvm_exit: isa == 2 foo", kvm_exit_), "isa == 2");
    EXPECT_EQ(describe("kvm_exit: bogus == 1 isa == 2", kvm_exit_), "isa == 2");
    EXPECT_EQ(describe("kvm_exit: isa == 1 isa == 2", kvm_exit_), "isa == 2");
}

TEST_F(FilterGrammar, StringComparisons) {
    auto ev = make(sched_switch_, switch_bytes("bash", 100, 1, "kworker/0:1", 5));
    EXPECT_EQ(run("sched_switch: prev_comm == \"bash\"", ev), M);
    EXPECT_EQ(run("sched_switch: prev_comm == 'bash'", ev), M);
    EXPECT_EQ(run("sched_switch: prev_comm != \"bash\"", ev), X);
    EXPECT_EQ(run("sched_switch: prev_comm == \"bas\"", ev), X);
    EXPECT_EQ(run("sched_switch: next_comm =~ \"^kworker\"", ev), M);
    EXPECT_EQ(run("sched_switch: next_comm =~ \"WORKER\"", ev), M);  // case-insensitive, unanchored
    EXPECT_EQ(run("sched_switch: next_comm =~ \"kw.*:1$\"", ev), M);
    EXPECT_EQ(run("sched_switch: next_comm !~ \"^kworker\"", ev), X);
    EXPECT_EQ(run("sched_switch: next_comm =~ \"^worker\"", ev), X);
    EXPECT_EQ(run("sched_switch: next_comm =~ \"0:1$\"", ev), M);
    EXPECT_EQ(run("sched_switch: next_comm =~ \"0:$\"", ev), X);
    EXPECT_EQ(run("sched_switch: next_comm =~ \"^KWorker/0:1$\"", ev), M);
    EXPECT_EQ(run("sched_switch: next_comm =~ \"^kworker/0$\"", ev), X);
    EXPECT_EQ(run("sched_switch: next_comm =~ \"^\"", ev), M);
    EXPECT_EQ(run("sched_switch: next_comm =~ \"^$\"", ev), X);
    EXPECT_EQ(run("sched_switch: next_comm =~ \"k[w]or\"", ev), M);
    EXPECT_EQ(run("sched_switch: next_comm == \"kwork\" \"er/0:1\"", ev), M);  // "a" "b" concatenates
    EXPECT_EQ(describe("sched_switch: prev_comm =~ \"ba\"", sched_switch_), "prev_comm =~ \"ba\"");
}

TEST_F(FilterGrammar, FullCharArrayWithoutNul) {
    auto ev = make(sched_switch_, switch_bytes("0123456789abcdef", 100, 1, "x", 5));
    EXPECT_EQ(run("sched_switch: prev_comm == \"0123456789abcdef\"", ev), M);
}

TEST_F(FilterGrammar, DataLocAndRelLocStrings) {
    auto ev = make(irq_, irq_bytes(25, "virtio0-input.0"));
    EXPECT_EQ(run("irq_handler_entry: name == \"virtio0-input.0\"", ev), M);
    EXPECT_EQ(run("irq_handler_entry: name =~ \"^virtio\"", ev), M);
    EXPECT_EQ(run("irq_handler_entry: name == \"virtio0\"", ev), X);
    // Without the trailing NUL inside the recorded length, libtraceevent compares a copy of the
    // field's own size (4 bytes).
    auto cut = make(irq_, irq_bytes(25, "virtio0-input.0", false));
    EXPECT_EQ(run("irq_handler_entry: name == \"virt\"", cut), M);

    Payload p(32);
    p.put<uint16_t>(0, 500).put<int32_t>(4, 100).put<uint32_t>(8, (6u << 16) | 4u).str(16, "hello");
    storage_.push_back(p.bytes());
    auto rel = make(rel_, storage_.back());
    EXPECT_EQ(run("rel_event: msg == \"hello\"", rel), M);
}

TEST_F(FilterGrammar, CommCpuAndNonStringFieldsAsText) {
    auto ev = make(kvm_exit_, kvm_bytes(0x10, 0xffffffff816aa497, 2));
    EXPECT_EQ(run("kvm_exit: COMM == \"CPU 0/KVM\"", ev), M);
    EXPECT_EQ(run("kvm_exit: COMM =~ \"^cpu\"", ev), M);
    EXPECT_EQ(run(".*: COMM != \"CPU 0/KVM\"", ev), X);
    EXPECT_EQ(run("kvm_exit: exit_reason == \"0x10\"", ev), M);        // numbers as 0x%llx
    EXPECT_EQ(run("kvm_exit: guest_rip == \"default_idle\"", ev), M);  // long: the kernel symbol
    EXPECT_EQ(run("kvm_exit: CPU == \"0x1\"", ev), M);
    auto unknown = make(kvm_exit_, kvm_bytes(0x10, 0x1000, 2, 4242));
    EXPECT_EQ(run("kvm_exit: COMM == \"<...>\"", unknown), M);
    EXPECT_EQ(run("kvm_exit: guest_rip == \"0x1000\"", unknown), M);  // no symbol: hex
    EXPECT_EQ(run("kvm_exit: guest_rip =~ \"^0x1\"", unknown), M);
}

TEST_F(FilterGrammar, SingleQuotedCharIsANumber) {
    auto ev = make(kvm_exit_, kvm_bytes('A', 0, 2));
    EXPECT_EQ(run("kvm_exit: exit_reason == 'A'", ev), M);
}

TEST_F(FilterGrammar, EvaluationErrors) {
    auto ev = make(kvm_exit_, kvm_bytes(5, 0, 2));
    EXPECT_EQ(run("kvm_exit: isa + \"x\"", ev), E);
    EXPECT_EQ(run("kvm_exit: isa ~ 3", ev), E);
    EXPECT_EQ(run("kvm_exit: isa / 0", ev), E);
    EXPECT_EQ(run("kvm_exit: isa % 0", ev), E);
    EXPECT_EQ(run("kvm_exit: isa == 2 || isa + \"x\"", ev), M);  // short-circuit: never evaluated
    EXPECT_EQ(run("kvm_exit: isa == 3 || isa + \"x\"", ev), E);
    EXPECT_EQ(run("kvm_exit: !(isa ~ 3)", ev), E);
}

struct ErrorCase {
    const char* text;
    const char* message;
    int column;
};

TEST_F(FilterGrammar, ExpressionErrorsNameTheColumn) {
    const ErrorCase cases[] = {
        {"kvm_exit: isa ==", "Syntax error", 16},
        {"kvm_exit: isa", "Syntax error", 13},
        {"kvm_exit:", "Syntax error", 10},
        {"kvm_exit:   ", "Syntax error", 12},
        {"kvm_exit: isa == 1 &&", "Syntax error", 21},
        {"kvm_exit: isa &", "Syntax error", 15},
        {"kvm_exit: isa >>= 1", "Unknown op token >>=", 17},
        {"kvm_exit: isa = 1", "Unknown op token =", 15},
        {"kvm_exit: isa == 1 ; exit_reason == 2", "Unknown op token ;", 20},
        {"kvm_exit: isa == exit_reason", "Syntax error", 28},
        {"kvm_exit: isa == bogus", "Illegal rvalue", 22},
        {"kvm_exit: isa < \"x\"", "Illegal comparison for string", 19},
        {"kvm_exit: isa =~ 3", "Op not allowed with integers", 18},
        {"kvm_exit: COMM =~ \"[\"", "RegEx '[' did not compute", 21},
        {"kvm_exit: isa (", "Open paren can not come after item", 15},
        {"kvm_exit: isa == 1 (", "Open paren can not come after expression", 20},
        {"kvm_exit: (isa == 1", "Unbalanced number of '('", 19},
        {"kvm_exit: isa == 1)", "unbalanced number of parenthesis", 19},
        {"kvm_exit: isa == 1, isa == 2", "Illegal token ','", 19},
        {"kvm_exit: 1 == isa", "Syntax error", 14},
        {"kvm_exit: && isa == 1", "Syntax error", 12},
        {"kvm_exit: isa == 1 || || isa == 2", "Syntax error", 33},
        {"kvm_exit: isa == 1 == 2", "Syntax error", 21},
        {"kvm_exit: (isa & 1) == 0", "Syntax error", 22},
        {"kvm_exit: ()", "Syntax error", 12},
        {"kvm_exit: COMM == \"abc", "Unterminated string", 19},
        {"kvm_exit: isa == 1 \x01", "Unexpected character", 20},
        {"kvm_exit: isa == 1 \xc3\xa9", "Unexpected character", 20},
        {"kvm_exit: COMM == \"a\xc3\xa9\"", "Unterminated string", 19},
        {"kvm_exit: COMM == \"a\\\"", "Unterminated string", 19},
        {"kvm_exit: !isa == 1 && exit_reason == 2)", "unbalanced number of parenthesis", 40},
    };
    Error nul = parse_error(std::string_view("kvm_exit: isa == 1\0 || x", 25));
    EXPECT_EQ(nul.message(), "Unexpected character");
    EXPECT_EQ(nul.column(), 19);
    for (const auto& c : cases) {
        Error e = parse_error(c.text);
        EXPECT_EQ(e.code(), Errc::parse) << c.text;
        EXPECT_EQ(e.message(), c.message) << c.text;
        EXPECT_EQ(e.line(), 1) << c.text;
        EXPECT_EQ(e.column(), c.column) << c.text;
    }
}

TEST_F(FilterGrammar, ErrorsThatDependOnTheTypeNameIt) {
    // prev_pid exists only in sched_switch; elsewhere the comparison is FALSE, no error.
    Error e = parse_error("sched_switch,irq_handler_entry: prev_pid < \"x\"");
    EXPECT_EQ(e.message(), "Illegal comparison for string (event sched/sched_switch)");
    EXPECT_EQ(e.column(), 46);
}

TEST_F(FilterGrammar, FilterSetFollowsTraceCmdReport) {
    auto s1 = make(sched_switch_, switch_bytes("bash", 100, 1, "x", 5));
    auto s2 = make(sched_switch_, switch_bytes("sh", 7, 1, "x", 5));
    auto irq = make(irq_, irq_bytes(25, "eth0"));
    auto accepted = [&](FilterSet& set, std::initializer_list<Event> evs) {
        std::string out;
        for (const Event& ev : evs) out += set.accept(ev) ? '1' : '0';
        return out;
    };
    {
        FilterSet set;
        EXPECT_TRUE(set.empty());
        EXPECT_EQ(accepted(set, {s1, s2, irq}), "111");
    }
    {  // positive: only what some filter matches; types nobody names are hidden
        FilterSet set;
        ASSERT_TRUE(set.add("sched_switch: prev_pid == 100", false, types_));
        EXPECT_EQ(accepted(set, {s1, s2, irq}), "100");
        ASSERT_TRUE(set.add("irq", false, types_));
        EXPECT_EQ(accepted(set, {s1, s2, irq}), "101");
    }
    {  // negative: hides what it matches; types it does not name pass
        FilterSet set;
        ASSERT_TRUE(set.add("sched_switch: prev_pid == 100", true, types_));
        EXPECT_EQ(accepted(set, {s1, s2, irq}), "011");
        EXPECT_EQ(set.negative_count(), 1u);
    }
    {  // both: -F sched_switch -v -F 'sched_switch: prev_pid == 100'
        FilterSet set;
        ASSERT_TRUE(set.add("sched_switch", false, types_));
        ASSERT_TRUE(set.add("sched_switch: prev_pid == 100", true, types_));
        EXPECT_EQ(accepted(set, {s1, s2, irq}), "010");
    }
    {  // errors count as "no match" for both kinds
        FilterSet pos, neg;
        ASSERT_TRUE(pos.add("sched_switch: prev_pid + \"x\"", false, types_));
        ASSERT_TRUE(neg.add("sched_switch: prev_pid + \"x\"", true, types_));
        EXPECT_EQ(accepted(pos, {s1}), "0");
        EXPECT_EQ(accepted(neg, {s1}), "1");
    }
    {
        FilterSet set;
        Status st = set.add("sched_switch: prev_pid ==", false, types_);
        ASSERT_FALSE(st);
        EXPECT_EQ(st.error().message(), "Syntax error");
        EXPECT_TRUE(set.empty());
    }
}

TEST_F(FilterGrammar, MovedFromObjectsStayUsable) {
    auto ev = make(kvm_exit_, kvm_bytes(5, 0, 2));
    EventFilter a = parse("kvm_exit: isa == 2");
    EventFilter b = std::move(a);
    EXPECT_EQ(b.test(ev), M);
    EXPECT_EQ(a.test(ev), N);  // NOLINT(bugprone-use-after-move): the moved-from state is defined
    EXPECT_FALSE(a.covers(kvm_exit_.id));
    EXPECT_EQ(a.text(), "");
    FilterSet s1;
    ASSERT_TRUE(s1.add("kvm_exit: isa == 3", false, types_));
    FilterSet s2 = std::move(s1);
    EXPECT_FALSE(s2.accept(ev));
    EXPECT_TRUE(s1.accept(ev));  // NOLINT(bugprone-use-after-move)
    EXPECT_TRUE(s1.empty());
    ASSERT_TRUE(s1.add("kvm_exit: isa == 3", false, types_));
    EXPECT_FALSE(s1.accept(ev));
}

TEST_F(FilterGrammar, StackTracesFollowTheEventTheyBelongTo) {
    Payload p(12);
    p.put<uint16_t>(0, 4).put<int32_t>(4, 100);
    storage_.push_back(p.bytes());
    auto stack0 = make(stack_, storage_.back(), 0);
    auto stack1 = make(stack_, storage_.back(), 1);
    auto shown = make(sched_switch_, switch_bytes("bash", 100, 1, "x", 5), 0);
    auto hidden = make(sched_switch_, switch_bytes("sh", 7, 1, "x", 5), 0);
    FilterSet set;
    ASSERT_TRUE(set.add("sched_switch: prev_pid == 100", false, types_));
    EXPECT_TRUE(set.accept(shown));
    EXPECT_TRUE(set.accept(stack0));   // follows a shown event on CPU 0
    EXPECT_FALSE(set.accept(stack1));  // nothing shown on CPU 1
    EXPECT_FALSE(set.accept(stack0));  // a stack after a stack: the state was cleared
    EXPECT_TRUE(set.accept(shown));
    EXPECT_FALSE(set.accept(hidden));  // hidden events leave the state alone (trace-cmd's rule)...
    EXPECT_TRUE(set.accept(stack0));   // ...so this stack still follows `shown`
    set.reset();
    EXPECT_FALSE(set.accept(stack0));

    // trace-cmd 3.1.6's rule (djseb_trace1_zstd.dat -F sched_switch prints 192 of its 203
    // kernel_stack records, every one after the first shown event of its CPU): a shown stack
    // keeps the state; an event -v hides clears it.
    FilterSet old;
    old.keep_showing_stacks(true);
    ASSERT_TRUE(old.add("sched_switch: prev_pid == 100", false, types_));
    EXPECT_FALSE(old.accept(stack0));  // nothing shown on CPU 0 yet
    EXPECT_TRUE(old.accept(shown));
    EXPECT_TRUE(old.accept(stack0));
    EXPECT_TRUE(old.accept(stack0));  // a stack after a stack: still shown
    EXPECT_FALSE(old.accept(hidden));
    EXPECT_TRUE(old.accept(stack0));
    EXPECT_FALSE(old.accept(stack1));  // nothing shown on CPU 1
    ASSERT_TRUE(old.add("sched_switch: prev_pid == 100", true, types_));
    EXPECT_FALSE(old.accept(shown));  // hidden by -v
    EXPECT_FALSE(old.accept(stack0));
}

TEST_F(FilterGrammar, GarbageNeverCrashes) {
    // Random strings over the grammar's alphabet: every answer is a filter or an error with a
    // column inside the text; a parsed filter evaluates without faults.
    const std::string alphabet =
        "kvm_exit:sched/,isa prev_comm COMM CPU bogus 0x1f 12 -=!<>&|~^*/%+()\"'\\ \t.[]$\x01\xc3";
    std::mt19937 rng(12345);
    auto ev = make(kvm_exit_, kvm_bytes(5, 0xffffffff816aa497, 2));
    auto sw = make(sched_switch_, switch_bytes("bash", 100, 1, "x", 5));
    int parsed = 0;
    for (int i = 0; i < 10000; ++i) {
        std::string s = (i % 2) ? "kvm_exit,sched_switch:" : "";
        const size_t n = rng() % 24;
        for (size_t k = 0; k < n; ++k) s.push_back(alphabet[rng() % alphabet.size()]);
        auto f = EventFilter::parse(s, types_);
        if (f) {
            ++parsed;
            (void)f->test(ev);
            (void)f->test(sw);
            for (uint32_t id : f->type_ids()) (void)f->describe(id);
        } else {
            EXPECT_GE(f.error().column(), 1) << s;
            EXPECT_LE(f.error().column(), static_cast<int>(s.size()) + 1) << s;
        }
    }
    EXPECT_GT(parsed, 0);
}

TEST_F(FilterGrammar, DeepNestingIsRefusedNotOverflowed) {
    std::string deep = "kvm_exit: " + std::string(5000, '(') + "isa == 1" + std::string(5000, ')');
    Error e = parse_error(deep);
    EXPECT_EQ(e.message(), "Filter too long (more than 1024 tokens)");
    std::string chain = "kvm_exit: isa == 1";
    for (int i = 0; i < 200; ++i) chain += " && isa == 1";
    auto ev = make(kvm_exit_, kvm_bytes(5, 0, 1));
    EXPECT_EQ(run(chain, ev), M);
}

}  // namespace
}  // namespace ringscope
