// What plugins' timeline annotators (ringscope/timeline.hpp) say during the viewer's pass: which
// host task runs each guest vCPU, and marks (a kvm exit: reason, guest function) on host tasks and
// CPU lanes. Kept apart from the summaries: the framework does not know what the marks mean.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <ringscope/timeline.hpp>

#include "framework/engine/trace_set.hpp"

namespace ringscope::view {

// Marks kept for the queries; past it only the counts go on (README.md).
inline constexpr size_t kMaxMarks = 4u << 20;

struct Mark {
    uint64_t ts = 0;
    uint32_t lane = 0;    // the CPU lane (ViewIndex::lanes()) it happened on
    int32_t pid = 0;      // the host task
    uint32_t label = 0;   // in strings()
    uint32_t detail = 0;  // in strings() (0: "")
    uint16_t kind = 0;    // the annotator (kinds())
};

// One mark of an answer, the first of N in its pixel.
struct MarkSpan {
    Mark mark;
    uint64_t n = 1;
};

class ViewMarks final : private TimelineSink {
  public:
    explicit ViewMarks(std::vector<std::unique_ptr<TimelineAnnotator>> annotators);

    // During the pass: an event of LANE (of file FILE), in merged time order.
    void feed(size_t lane, size_t file, const Event& ev);
    // After the pass: which guest file each vCPU thread's vCPU belongs to (the host file's GUEST
    // option names its vCPU threads; else a host with one guest file beside it).
    void finish(const engine::TraceSet& set);

    bool empty() const noexcept { return annotators_.empty(); }
    // Per guest file: vCPU -> host pid.
    const std::map<size_t, std::map<int64_t, int>>& vcpus() const noexcept { return guest_vcpus_; }
    const std::vector<std::string>& kinds() const noexcept { return kinds_; }
    const std::string& text(uint32_t id) const { return strings_[id]; }
    // Every mark's count by (kind, label), even past kMaxMarks.
    const std::map<std::pair<uint16_t, uint32_t>, uint64_t>& totals() const noexcept { return totals_; }
    bool complete() const noexcept { return dropped_ == 0; }

    // The marks of [FROM, TO] at WIDTH pixels: per CPU lane and per task, the first of each pixel.
    struct Answer {
        std::map<uint32_t, std::vector<MarkSpan>> lanes;
        std::map<int32_t, std::vector<MarkSpan>> tasks;
        std::map<std::pair<uint16_t, uint32_t>, uint64_t> counts;  // in the range
    };
    Answer query(uint64_t from, uint64_t to, uint32_t width) const;

  private:
    void vcpu(const Event& ev, int64_t vcpu) override;
    void mark(const Event& ev, std::string_view label, std::string_view detail) override;
    uint32_t intern(std::string_view s);
    const std::vector<uint16_t>& subscribers(const EventType& type);

    struct VcpuSeen {
        int64_t vcpu = -1;
        uint64_t ts = 0;
    };

    std::vector<std::unique_ptr<TimelineAnnotator>> annotators_;
    std::vector<std::vector<EventMatch>> subscriptions_;
    std::unordered_map<const EventType*, std::vector<uint16_t>> by_type_;
    std::vector<std::string> kinds_, strings_;
    std::unordered_map<std::string, uint32_t> string_ids_;
    std::map<std::pair<size_t, int>, VcpuSeen> threads_;  // (file, pid) -> its vCPU
    std::map<size_t, std::map<int64_t, int>> guest_vcpus_;
    std::vector<Mark> marks_;
    std::map<std::pair<uint16_t, uint32_t>, uint64_t> totals_;
    uint64_t dropped_ = 0;
    // The event being fed.
    size_t lane_ = 0, file_ = 0;
    uint16_t kind_ = 0;
};

}  // namespace ringscope::view
