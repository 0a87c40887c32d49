// An output fed every event of a run in time order (SQLite, Perfetto JSON, the report summary).
#pragma once

#include <string>

#include <ringscope/error.hpp>
#include <ringscope/event.hpp>

namespace ringscope::sinks {

class EventSink {
  public:
    virtual ~EventSink() = default;
    // `input` indexes the run's inputs (host first); `input_name` names it ("host", a guest).
    virtual Status add_input(int input, const std::string& input_name, const std::string& path, int cpus) = 0;
    virtual void on_event(int input, const Event& ev) = 0;
    // Completes the output under a temporary name; commit() then renames it into place, so that a
    // run renames its outputs only once every one of them is complete.
    virtual Status finish() = 0;
    virtual Status commit() { return {}; }
};

}  // namespace ringscope::sinks
