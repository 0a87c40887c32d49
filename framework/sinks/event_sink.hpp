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
    // Writes the output; the file appears under its final name only when this succeeds.
    virtual Status finish() = 0;
};

}  // namespace ringscope::sinks
