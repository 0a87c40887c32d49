#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include <ringscope/log_histogram.hpp>

using ringscope::LogHistogram;

namespace {

uint64_t exact_quantile(std::vector<uint64_t> v, double q) {
    std::sort(v.begin(), v.end());
    size_t rank = std::max<size_t>(1, static_cast<size_t>(std::ceil(q * static_cast<double>(v.size()))));
    return v[rank - 1];
}

TEST(LogHistogram, SmallValuesAreExact) {
    LogHistogram h;
    for (uint64_t v = 0; v < 100; ++v) h.add(v);
    EXPECT_EQ(h.count(), 100u);
    EXPECT_EQ(h.min(), 0u);
    EXPECT_EQ(h.max(), 99u);
    EXPECT_EQ(h.quantile(0.5), 49u);
    EXPECT_DOUBLE_EQ(h.mean(), 49.5);
}

TEST(LogHistogram, QuantilesWithinTheStatedBound) {
    std::mt19937_64 rng(42);
    std::lognormal_distribution<double> dist(10.0, 3.0);
    std::vector<uint64_t> values;
    LogHistogram h;
    for (int i = 0; i < 200000; ++i) {
        uint64_t v = static_cast<uint64_t>(dist(rng));
        values.push_back(v);
        h.add(v);
    }
    for (double q : {0.01, 0.5, 0.9, 0.99, 0.999}) {
        uint64_t want = exact_quantile(values, q);
        uint64_t got = h.quantile(q);
        EXPECT_LE(std::fabs(static_cast<double>(got) - static_cast<double>(want)),
                  static_cast<double>(want) * LogHistogram::kRelativeError + 1)
            << "q=" << q;
    }
    EXPECT_EQ(h.min(), *std::min_element(values.begin(), values.end()));
    EXPECT_EQ(h.max(), *std::max_element(values.begin(), values.end()));
}

TEST(LogHistogram, MergeEqualsOneHistogramOfEverything) {
    std::mt19937_64 rng(7);
    LogHistogram all, a, b;
    for (int i = 0; i < 10000; ++i) {
        uint64_t v = rng() % 10000000;
        all.add(v);
        (i % 3 ? a : b).add(v);
    }
    a.merge(b);
    EXPECT_EQ(a.count(), all.count());
    EXPECT_EQ(a.min(), all.min());
    EXPECT_EQ(a.max(), all.max());
    EXPECT_EQ(a.buckets(), all.buckets());
    for (double q : {0.5, 0.9, 0.99}) EXPECT_EQ(a.quantile(q), all.quantile(q));
}

TEST(LogHistogram, BucketBoundsContainTheirValues) {
    for (uint64_t v : {0ull, 1ull, 127ull, 128ull, 129ull, 255ull, 256ull, 1000000007ull, ~0ull >> 1}) {
        size_t i = LogHistogram::index_of(v);
        EXPECT_LE(LogHistogram::lower(i), v);
        EXPECT_GT(LogHistogram::lower(i + 1), v);
    }
}

}  // namespace
