// Chrome/Perfetto trace JSON ({"traceEvents": [...]}, ts/dur in microseconds) that ui.perfetto.dev
// and chrome://tracing open. Per input: a process "NAME CPUs" with one thread track per CPU holding
// task slices (sched_switch: from switch-in to the next switch on that CPU, idle left empty) and
// instants (wakeups, fork/exec/exit, trace_marker prints); a counter "NAME running CPUs"; a
// process "NAME KVM vCPUs" with one track per vCPU holding kvm_exit -> kvm_entry slices named by
// exit reason.
#pragma once

#include <memory>
#include <string>

#include "framework/sinks/event_sink.hpp"

namespace ringscope::sinks {

class PerfettoSink final : public EventSink {
  public:
    static Expected<std::unique_ptr<PerfettoSink>> create(const std::string& path);
    ~PerfettoSink() override;

    Status add_input(int input, const std::string& input_name, const std::string& path, int cpus) override;
    void on_event(int input, const Event& ev) override;
    Status finish() override;
    Status commit() override;

    struct Impl;

  private:
    explicit PerfettoSink(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

// Appends `s` as a JSON string literal (quotes included).
void append_json_string(std::string& out, std::string_view s);

}  // namespace ringscope::sinks
