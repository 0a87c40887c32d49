// TimeConverter against libtracecmd's timestamp_calc (trace-cmd 3.1.6 / libtracecmd 1.3.1).
#include <gtest/gtest.h>

#include "framework/engine/time_converter.hpp"

namespace ringscope::engine {
namespace {

io::TimeShiftSample sample(int64_t time, int64_t offset, int64_t scaling = 1, int64_t fraction = 0) {
    return {time, offset, scaling, fraction};
}

TEST(TimeConverter, MulU64U32ShrEqualsExactProduct) {
    const uint64_t values[] = {0, 1, 495387527542ull, 0xffffffffull, 0x100000000ull, 0x123456789abcdefull};
    for (uint64_t a : values) {
        for (unsigned shift : {0u, 1u, 10u, 31u, 32u}) {
            const uint32_t mult = 1073741824u;
            const unsigned __int128 exact = (static_cast<unsigned __int128>(a) * mult) >> shift;
            EXPECT_EQ(TimeConverter::mul_u64_u32_shr(a, mult, shift), static_cast<uint64_t>(exact))
                << a << " " << shift;
        }
    }
}

TEST(TimeConverter, DefaultIsIdentityPlusOffset) {
    TimeConverter tc;
    EXPECT_EQ(tc.convert(12345, 0), 12345u);
    tc.set_offset(-45);
    EXPECT_EQ(tc.convert(12345, 0), 12300u);
    tc.add_offset(100);
    EXPECT_EQ(tc.convert(12345, 0), 12400u);
}

TEST(TimeConverter, RawIgnoresEverything) {
    TimeConverter tc;
    tc.set_tsc2nsec(1073741824u, 31);
    tc.set_offset(1000);
    tc.set_time_shift({{sample(0, 50)}}, false);
    tc.set_raw(true);
    EXPECT_EQ(tc.convert(777, 0), 777u);
}

// The kvm-agent fixture's guest: ns = ((raw + 57022752892) * 2^30) >> 31 (its README's example).
TEST(TimeConverter, AgentGuestExample) {
    TimeConverter tc;
    tc.set_tsc2nsec(1073741824u, 31);
    tc.set_time_shift({{sample(477919094122, 57022752892), sample(506410555956, 57022752892)},
                       {sample(478576722786, 57022752892), sample(506975966986, 57022752892)}},
                      false);
    EXPECT_EQ(tc.convert(495387527542ull, 1), 276205140217ull);
}

TEST(TimeConverter, OneSampleAddsItsOffsetOnly) {
    TimeConverter tc;
    tc.set_time_shift({{sample(100, -40, 3)}}, false);
    EXPECT_EQ(tc.convert(1000, 0), 960u);  // no scaling with a single sample
}

TEST(TimeConverter, TwoSamplesScaleAndShiftWithTheLowerSample) {
    TimeConverter tc;
    tc.set_time_shift({{sample(0, 10, 2, 1), sample(1000, 500, 8, 0)}}, false);
    // (ts * 2) >> 1 + 10
    EXPECT_EQ(tc.convert(700, 0), 710u);
}

TEST(TimeConverter, InterpolatedOffsetRoundsToNearest) {
    TimeConverter tc;
    tc.set_time_shift({{sample(0, 0), sample(1000, 1000)}}, true);
    // tscor = 0 + ((ts - 0) * 1000 + 500) / 1000
    EXPECT_EQ(tc.convert(250, 0), 500u);
    EXPECT_EQ(tc.convert(1500, 0), 3000u);  // past the last sample: the last pair, extrapolated
}

TEST(TimeConverter, NegativeOffsetsSubtract) {
    TimeConverter tc;
    tc.set_time_shift({{sample(0, -100), sample(10, -100)}}, false);
    EXPECT_EQ(tc.convert(1000, 0), 900u);
}

TEST(TimeConverter, ManySamplesPickTheSurroundingPair) {
    TimeConverter tc;
    // Unsorted with a duplicate time: sorted by time, the first of equal times kept.
    tc.set_time_shift(
        {{sample(300, 3000), sample(100, 1000), sample(200, 2000), sample(200, 9999), sample(400, 4000)}},
        false);
    EXPECT_EQ(tc.convert(50, 0), 1050u);   // before the first: first pair
    EXPECT_EQ(tc.convert(150, 0), 1150u);  // between 100 and 200: lower = 100
    EXPECT_EQ(tc.convert(250, 0), 2250u);  // between 200 and 300 (the 9999 duplicate is dropped)
    EXPECT_EQ(tc.convert(300, 0), 3300u);  // exactly on a sample: that sample is the lower one
    EXPECT_EQ(tc.convert(350, 0), 3350u);
    EXPECT_EQ(tc.convert(999, 0), 3999u);  // after the last: the last pair's lower sample (300)
}

TEST(TimeConverter, CpuWithoutSamplesIsUnchanged) {
    TimeConverter tc;
    tc.set_time_shift({{sample(0, 5)}}, false);
    EXPECT_EQ(tc.convert(100, 1), 100u);
    EXPECT_EQ(tc.convert(100, -1), 100u);
}

TEST(TimeConverter, Ts2SecsMultipliesAsADouble) {
    TimeConverter tc;
    tc.set_tsc2nsec(1073741824u, 31);  // a user frequency wins over TSC2NSEC
    tc.set_ts2secs_hz(2000000000);
    EXPECT_EQ(tc.convert(440458073989ull, 0), 220229036994ull);
    tc.set_ts2secs_hz(3);
    EXPECT_EQ(tc.convert(10, 0), static_cast<uint64_t>(10 * (1e9 / 3.0)));
}

TEST(TimeConverter, FromOptionsTakesTsc2NsecAndTimeShift) {
    io::TraceDatOptions o;
    o.tsc2nsec = io::Tsc2Nsec{1073741824u, 31, 0};
    io::TimeShift shift;
    shift.flags = 0;
    shift.cpus = {{sample(10, 100)}};
    o.time_shift = shift;
    TimeConverter tc = TimeConverter::from_options(o);
    EXPECT_TRUE(tc.has_tsc2nsec());
    EXPECT_TRUE(tc.has_time_shift());
    EXPECT_EQ(tc.convert(900, 0), 500u);  // (900 + 100) / 2
}

}  // namespace
}  // namespace ringscope::engine
