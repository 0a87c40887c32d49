// TraceFile / TraceSet on committed traces: clocks, host + guest pairing, first timestamps.
#include <gtest/gtest.h>

#include "framework/engine/trace_set.hpp"
#include "framework/symbols/guest_symbols.hpp"
#include "test_trace.hpp"

namespace ringscope::engine {
namespace {

TEST(TraceFileTest, LocalClockPrintsSecondsRawTsDoesNot) {
    auto f = TraceFile::open(test::data_path("traces/basic.dat"), OpenOptions{});
    ASSERT_TRUE(f);
    EXPECT_EQ((*f)->trace_clock(), "local");
    EXPECT_TRUE((*f)->in_usecs());
    EXPECT_TRUE((*f)->use_trace_clock());
    OpenOptions raw;
    raw.raw_ts = true;
    auto r = TraceFile::open(test::data_path("traces/basic.dat"), raw);
    ASSERT_TRUE(r);
    EXPECT_FALSE((*r)->in_usecs());
    OpenOptions hz;
    hz.ts2secs_hz = 1000;
    auto h = TraceFile::open(test::data_path("traces/basic.dat"), hz);
    ASSERT_TRUE(h);
    EXPECT_FALSE((*h)->use_trace_clock());
}

TEST(TraceFileTest, Tsc2NsecKeepsSeconds) {
    auto f = TraceFile::open(test::data_path("kvm-agent/host-vm2.dat"), OpenOptions{});
    ASSERT_TRUE(f) << f.error().to_string();
    EXPECT_TRUE((*f)->in_usecs());
    EXPECT_TRUE((*f)->clock().has_tsc2nsec());
    EXPECT_TRUE((*f)->clock().has_time_shift());
}

TEST(TraceFileTest, OpenErrorsNameTheFile) {
    auto f = TraceFile::open("/nonexistent/x.dat", OpenOptions{});
    ASSERT_FALSE(f);
    EXPECT_NE(f.error().to_string().find("/nonexistent/x.dat"), std::string::npos);
}

TEST(TraceFileTest, CommsComeFromSavedCmdlinesAndFirstRegistrationWins) {
    auto f = TraceFile::open(test::data_path("traces/basic.dat"), OpenOptions{});
    ASSERT_TRUE(f);
    TraceFile& t = **f;
    EXPECT_EQ(t.comm(0), "<idle>");
    EXPECT_EQ(t.comm(8664), "record.sh");
    EXPECT_EQ(t.comm(999999), "<...>");
    std::string_view before = t.comm(8664);
    t.register_comm(8664, "other");
    EXPECT_EQ(t.comm(8664), "record.sh");
    EXPECT_EQ(before, "record.sh");  // views stay valid
    t.register_comm(999999, "new");
    EXPECT_EQ(t.comm(999999), "new");
    t.comms().set(8664, "override");
    EXPECT_EQ(t.comm(8664), "override");
}

// libtraceevent's list stage: a name registered before the first look-up sits beside the saved
// cmdline of the same pid, and bsearch picks between them (trace-cmd report --cpu 1 basic.dat
// prints "record.sh-8673" where the saved cmdlines say "true").
TEST(TraceFileTest, RegistrationBeforeTheFirstLookupCanWin) {
    auto f = TraceFile::open(test::data_path("traces/basic.dat"), OpenOptions{});
    ASSERT_TRUE(f);
    TraceFile& t = **f;
    EXPECT_EQ(t.comm(0), "<idle>");  // pid 0 does not end the list stage
    t.register_comm(8673, "record.sh");
    EXPECT_EQ(t.comm(8673), "record.sh");
    t.register_comm(8673, "again");  // after the first look-up the name stays
    EXPECT_EQ(t.comm(8673), "record.sh");
}

TEST(TraceSetTest, HostGuestPairRegistersGuestSymbols) {
    TraceSet set;
    ASSERT_TRUE(set.add_file(test::data_path("kvm-agent/host.dat"), OpenOptions{}));
    ASSERT_TRUE(set.add_file(test::data_path("kvm-agent/host-vm2.dat"), OpenOptions{}));
    EXPECT_EQ(set.pair_guests(), 1u);
    EXPECT_TRUE(set.resolvers().has("vm2"));
    EXPECT_TRUE(set.resolvers().has(symbols::vcpu_thread_domain(159)));
    EXPECT_TRUE(set.resolvers().has(symbols::vcpu_thread_domain(160)));
    // The host file's events see the guest domains through their context.
    EXPECT_TRUE(set.file(0).resolvers().has("vm2"));
    EXPECT_TRUE(set.file(0).resolvers().has("kernel"));
}

TEST(TraceSetTest, SingleFileHasNoGuests) {
    TraceSet set;
    ASSERT_TRUE(set.add_file(test::data_path("kvm-agent/host.dat"), OpenOptions{}));
    EXPECT_EQ(set.pair_guests(), 0u);
    EXPECT_FALSE(set.resolvers().has("vm2"));
}

TEST(TraceSetTest, FirstTimestampIsTheEarliestFirstRecord) {
    TraceSet set;
    ASSERT_TRUE(set.add_file(test::data_path("traces/basic.dat"), OpenOptions{}));
    auto first = set.first_timestamp();
    ASSERT_TRUE(first);
    EXPECT_EQ(*first, 440458073989ull);  // the first line of `trace-cmd report -t`
}

}  // namespace
}  // namespace ringscope::engine
