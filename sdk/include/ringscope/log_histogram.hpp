// A mergeable log-linear histogram of non-negative integers (nanoseconds, counts): streaming
// percentiles in bounded memory. Each power of two is split into kSubBuckets linear buckets, so a
// percentile is within 1/kSubBuckets (0.79%) of the exact sample value, relative, and values below
// kSubBuckets are exact. count, sum, min and max are exact. Two histograms merge by adding buckets,
// which is what several files, CPUs or shards need.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <vector>

namespace ringscope {

class LogHistogram {
public:
    static constexpr unsigned kSubBits = 7;
    static constexpr uint64_t kSubBuckets = uint64_t{1} << kSubBits;  // 128
    static constexpr double kRelativeError = 1.0 / static_cast<double>(kSubBuckets);

    void add(uint64_t v, uint64_t n = 1) {
        if (n == 0) return;
        size_t i = index_of(v);
        if (i >= buckets_.size()) buckets_.resize(i + 1, 0);
        buckets_[i] += n;
        count_ += n;
        sum_ += static_cast<long double>(v) * static_cast<long double>(n);
        min_ = std::min(min_, v);
        max_ = std::max(max_, v);
    }

    void merge(const LogHistogram& o) {
        if (o.buckets_.size() > buckets_.size()) buckets_.resize(o.buckets_.size(), 0);
        for (size_t i = 0; i < o.buckets_.size(); ++i) buckets_[i] += o.buckets_[i];
        count_ += o.count_;
        sum_ += o.sum_;
        min_ = std::min(min_, o.min_);
        max_ = std::max(max_, o.max_);
    }

    uint64_t count() const noexcept { return count_; }
    uint64_t min() const noexcept { return count_ ? min_ : 0; }
    uint64_t max() const noexcept { return max_; }
    long double sum() const noexcept { return sum_; }
    double mean() const noexcept { return count_ ? static_cast<double>(sum_ / static_cast<long double>(count_)) : 0.0; }

    // The value at quantile q (0..1): the smallest bucket whose cumulative count reaches
    // ceil(q * count), reported as the bucket's midpoint clamped to [min, max].
    uint64_t quantile(double q) const noexcept {
        if (count_ == 0) return 0;
        if (q <= 0) return min();
        if (q >= 1) return max_;
        uint64_t rank = static_cast<uint64_t>(q * static_cast<double>(count_));
        if (static_cast<double>(rank) < q * static_cast<double>(count_)) ++rank;
        if (rank == 0) rank = 1;
        uint64_t seen = 0;
        for (size_t i = 0; i < buckets_.size(); ++i) {
            seen += buckets_[i];
            if (seen >= rank) return std::clamp(midpoint(i), min(), max_);
        }
        return max_;
    }

    // Raw state, for --partial files and merges across processes.
    const std::vector<uint64_t>& buckets() const noexcept { return buckets_; }
    static LogHistogram from_state(std::vector<uint64_t> buckets, uint64_t count, long double sum, uint64_t min,
                                   uint64_t max) {
        LogHistogram h;
        h.buckets_ = std::move(buckets);
        h.count_ = count;
        h.sum_ = sum;
        h.min_ = count ? min : std::numeric_limits<uint64_t>::max();
        h.max_ = max;
        return h;
    }

    // Bucket bounds, for printing a histogram: [lower(i), lower(i+1)).
    static uint64_t lower(size_t i) noexcept {
        if (i < kSubBuckets) return i;
        unsigned exp = static_cast<unsigned>(i >> kSubBits);  // >= 1
        uint64_t sub = i & (kSubBuckets - 1);
        return (kSubBuckets + sub) << (exp - 1);
    }
    static size_t index_of(uint64_t v) noexcept {
        if (v < kSubBuckets) return static_cast<size_t>(v);
        unsigned msb = 63u - static_cast<unsigned>(std::countl_zero(v));  // >= kSubBits
        unsigned exp = msb - kSubBits + 1;
        uint64_t sub = (v >> (exp - 1)) - kSubBuckets;
        return (static_cast<size_t>(exp) << kSubBits) + static_cast<size_t>(sub);
    }

private:
    static uint64_t midpoint(size_t i) noexcept {
        uint64_t lo = lower(i), hi = lower(i + 1);
        return lo + (hi - lo) / 2;
    }

    std::vector<uint64_t> buckets_;
    uint64_t count_ = 0;
    long double sum_ = 0;
    uint64_t min_ = std::numeric_limits<uint64_t>::max();
    uint64_t max_ = 0;
};

}  // namespace ringscope
