// What a plugin adds to the timeline of `ringscope view` (and the HTML of `ringscope run`): which
// host task runs which guest vCPU, and marks on host tasks and CPUs (a kvm exit by reason and guest
// function, ...). The framework knows nothing of what the events mean: during the viewer's one pass
// it feeds each annotator the events it subscribes to, in time order, and the annotator tells the
// sink what it found. Data flows one way: the annotator never reads the viewer's state.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include <ringscope/event.hpp>
#include <ringscope/handler.hpp>

namespace ringscope {

class TimelineSink {
public:
    virtual ~TimelineSink() = default;
    // EV's task (a host thread) runs vCPU VCPU of a guest: the guest's lane of that vCPU is drawn
    // under this task. The latest call for a task wins (a tie in time: the larger vCPU).
    virtual void vcpu(const Event& ev, int64_t vcpu) = 0;
    // A mark at EV's time on its task and CPU: LABEL groups marks (counted, colored per label),
    // DETAIL says more (may be empty). Both are copied.
    virtual void mark(const Event& ev, std::string_view label, std::string_view detail) = 0;
};

class TimelineAnnotator {
public:
    virtual ~TimelineAnnotator() = default;
    // What its marks are ("kvm exit"): shown with them and in the counts.
    virtual std::string_view name() const = 0;
    virtual std::vector<EventMatch> subscriptions() const = 0;
    // Each subscribed event of every input, in the merged time order of `report`.
    virtual void on_event(const Event& ev, TimelineSink& sink) = 0;
};

// A factory: the framework makes one annotator per pass.
using TimelineAnnotatorFactory = std::function<std::unique_ptr<TimelineAnnotator>()>;

}  // namespace ringscope
