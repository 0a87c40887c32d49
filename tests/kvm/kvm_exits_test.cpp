#include "kvm_exits.hpp"

#include <gtest/gtest.h>

#include "framework/symbols/kallsyms_resolver.hpp"
#include "test_format.hpp"

using namespace kvm_test;
using ringscope::Cell;
using ringscope::Event;
using ringscope::EventType;
using ringscope::ResultTable;
using ringscope::kvm::KvmExitsAnalysis;
using ringscope::kvm::KvmExitsOptions;

namespace {

struct Sink final : ringscope::ResultSink {
    std::vector<ResultTable> tables;
    void add_table(ResultTable t) override { tables.push_back(std::move(t)); }
    const ResultTable& get(const std::string& name) const {
        for (const auto& t : tables)
            if (t.name == name) return t;
        ADD_FAILURE() << "no table " << name;
        static ResultTable none;
        return none;
    }
};

class KvmExitsTest : public ::testing::Test {
  protected:
    void SetUp() override {
        auto r = ringscope::symbols::KallsymsResolver::parse(
            "ffffffff81000000 T fn_a\nffffffff81000100 T fn_b\nffffffff81001000 T fn_z\n", "t");
        ASSERT_TRUE(r);
        ctx.resolvers_.add("guest", *r);
        analysis.begin(ctx);
    }
    void exit(uint64_t ts, int pid, int vcpu, uint64_t reason, uint64_t rip, int isa = 2) {
        records.push_back(build_record(*exit_type, pid,
                                       {{"exit_reason", std::to_string(reason)},
                                        {"isa", std::to_string(isa)},
                                        {"guest_rip", std::to_string(rip)},
                                        {"vcpu_id", std::to_string(vcpu)}},
                                       false));
        analysis.on_event(Event(exit_type.get(), &ctx, records.back(), ts, 0));
    }
    void entry(uint64_t ts, int pid, int vcpu) {
        records.push_back(
            build_record(*entry_type, pid, {{"vcpu_id", std::to_string(vcpu)}, {"rip", "0"}}, false));
        analysis.on_event(Event(entry_type.get(), &ctx, records.back(), ts, 0));
    }

    std::unique_ptr<EventType> exit_type = load_format(data_path("formats-6.18/kvm_exit"), "kvm");
    std::unique_ptr<EventType> entry_type = load_format(data_path("formats-6.18/kvm_entry"), "kvm");
    FakeContext ctx;
    KvmExitsAnalysis analysis;
    std::vector<std::vector<uint8_t>> records;
    Sink sink;
};

constexpr uint64_t kA = 0xffffffff81000000, kB = 0xffffffff81000100;

template <class T>
T as(const Cell& c) {
    EXPECT_TRUE(std::holds_alternative<T>(c)) << "cell type index " << c.index();
    return std::holds_alternative<T>(c) ? std::get<T>(c) : T{};
}

}  // namespace

TEST_F(KvmExitsTest, ReasonsVcpusAndFunctions) {
    exit(1000, 100, 0, 0x7c, kA + 4);
    entry(1500, 100, 0);
    exit(2000, 101, 1, 0x7c, kB);
    entry(2100, 101, 1);
    exit(3000, 100, 0, 0x78, kA);
    entry(13000, 100, 0);
    exit(4000, 101, 1, 0x7c, kA + 8);
    entry(4300, 101, 1);
    exit(5000, 100, 0, 0x7c, 0x401000);  // user space, and no entry before the end
    analysis.end(sink);
    EXPECT_EQ(analysis.exits(), 5u);

    const ResultTable& r = sink.get("kvm.exits.reasons");
    ASSERT_EQ(r.columns, (std::vector<std::string>{"reason", "isa", "exit_code", "count", "share_pct",
                                                   "min_ns", "mean_ns", "p50_ns", "p99_ns", "max_ns"}));
    ASSERT_EQ(r.rows.size(), 2u);
    EXPECT_EQ(as<std::string>(r.rows[0][0]), "EXIT_MSR");
    EXPECT_EQ(as<std::string>(r.rows[0][1]), "SVM");  // the isa by name, not its code 2
    EXPECT_EQ(as<uint64_t>(r.rows[0][2]), 0x7cu);
    EXPECT_EQ(as<uint64_t>(r.rows[0][3]), 4u);
    EXPECT_DOUBLE_EQ(as<double>(r.rows[0][4]), 80.0);
    EXPECT_EQ(as<uint64_t>(r.rows[0][5]), 100u);
    EXPECT_DOUBLE_EQ(as<double>(r.rows[0][6]), 300.0);
    EXPECT_EQ(as<uint64_t>(r.rows[0][7]), 300u);
    EXPECT_EQ(as<uint64_t>(r.rows[0][8]), 500u);
    EXPECT_EQ(as<uint64_t>(r.rows[0][9]), 500u);
    EXPECT_EQ(as<std::string>(r.rows[1][0]), "EXIT_HLT");
    EXPECT_DOUBLE_EQ(as<double>(r.rows[1][4]), 20.0);
    EXPECT_EQ(as<uint64_t>(r.rows[1][5]), 10000u);

    const ResultTable& v = sink.get("kvm.exits.vcpus");
    ASSERT_EQ(v.rows.size(), 2u);
    EXPECT_EQ(as<int64_t>(v.rows[0][0]), 100);
    EXPECT_EQ(as<int64_t>(v.rows[0][1]), 0);
    EXPECT_EQ(as<uint64_t>(v.rows[0][2]), 3u);
    EXPECT_DOUBLE_EQ(as<double>(v.rows[0][3]), 60.0);
    EXPECT_EQ(as<uint64_t>(v.rows[0][4]), 500u);  // min
    EXPECT_DOUBLE_EQ(as<double>(v.rows[0][5]), 5250.0);
    EXPECT_EQ(as<uint64_t>(v.rows[0][6]), 500u);    // p50 of {500, 10000}
    EXPECT_EQ(as<uint64_t>(v.rows[0][7]), 10000u);  // p99
    EXPECT_EQ(as<int64_t>(v.rows[1][0]), 101);
    EXPECT_EQ(as<uint64_t>(v.rows[1][2]), 2u);

    const ResultTable& vr = sink.get("kvm.exits.vcpu_reasons");
    ASSERT_EQ(vr.rows.size(), 3u);  // 100: MSR, HLT; 101: MSR
    EXPECT_EQ(as<std::string>(vr.rows[0][2]), "EXIT_MSR");
    EXPECT_EQ(as<uint64_t>(vr.rows[0][3]), 2u);
    EXPECT_EQ(as<uint64_t>(vr.rows[0][5]), 500u);  // its second exit never got an entry
    EXPECT_EQ(as<std::string>(vr.rows[1][2]), "EXIT_HLT");

    const ResultTable& f = sink.get("kvm.exits.functions");
    ASSERT_EQ(f.rows.size(), 4u);
    EXPECT_EQ(as<std::string>(f.rows[0][0]), "EXIT_MSR");
    EXPECT_EQ(as<uint64_t>(f.rows[0][1]), 1u);
    EXPECT_EQ(as<std::string>(f.rows[0][2]), "fn_a");
    EXPECT_EQ(as<uint64_t>(f.rows[0][3]), 2u);
    EXPECT_DOUBLE_EQ(as<double>(f.rows[0][4]), 50.0);
    EXPECT_EQ(as<std::string>(f.rows[1][2]), "[unresolved]");
    EXPECT_EQ(as<std::string>(f.rows[2][2]), "fn_b");
    EXPECT_EQ(as<std::string>(f.rows[3][0]), "EXIT_HLT");
    EXPECT_EQ(as<std::string>(f.rows[3][2]), "fn_a");
}

TEST_F(KvmExitsTest, PercentilesAreNearestRank) {
    // 1000 exits of one reason taking 1..1000 ns, in a scrambled order.
    for (uint64_t i = 0; i < 1000; ++i) {
        uint64_t d = (i * 7919) % 1000 + 1;
        exit(i * 10000, 7, 0, 0x60, kA);
        entry(i * 10000 + d, 7, 0);
    }
    analysis.end(sink);
    const ResultTable& r = sink.get("kvm.exits.reasons");
    ASSERT_EQ(r.rows.size(), 1u);
    EXPECT_EQ(as<std::string>(r.rows[0][0]), "EXIT_INTR");
    EXPECT_EQ(as<uint64_t>(r.rows[0][5]), 1u);
    EXPECT_DOUBLE_EQ(as<double>(r.rows[0][6]), 500.5);
    EXPECT_EQ(as<uint64_t>(r.rows[0][7]), 500u);
    EXPECT_EQ(as<uint64_t>(r.rows[0][8]), 990u);
    EXPECT_EQ(as<uint64_t>(r.rows[0][9]), 1000u);
}

TEST_F(KvmExitsTest, VmxNamesAndTopLimit) {
    KvmExitsAnalysis limited(KvmExitsOptions{1});
    limited.begin(ctx);
    for (int i = 0; i < 3; ++i) {
        records.push_back(build_record(
            *exit_type, 5,
            {{"exit_reason", "0x80000021"}, {"isa", "1"}, {"guest_rip", std::to_string(i ? kA : kB)}},
            false));
        limited.on_event(Event(exit_type.get(), &ctx, records.back(), 100u * i, 0));
    }
    limited.end(sink);
    const ResultTable& r = sink.get("kvm.exits.reasons");
    ASSERT_EQ(r.rows.size(), 1u);
    EXPECT_EQ(as<std::string>(r.rows[0][0]), "INVALID_STATE FAILED_VMENTRY");
    EXPECT_TRUE(std::holds_alternative<std::monostate>(r.rows[0][5]));  // no entries: no times
    const ResultTable& f = sink.get("kvm.exits.functions");
    ASSERT_EQ(f.rows.size(), 1u);
    EXPECT_EQ(as<std::string>(f.rows[0][2]), "fn_a");
}

TEST_F(KvmExitsTest, EmptyRun) {
    analysis.end(sink);
    EXPECT_EQ(sink.tables.size(), 4u);
    for (const auto& t : sink.tables) EXPECT_TRUE(t.rows.empty()) << t.name;
}
