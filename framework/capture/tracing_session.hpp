// The tracing state a capture changes, and its restoration. On the top buffer: the enabled events,
// buffer size, clock and tracing_on are saved first and put back by restore(); with an instance
// name, the instance is created (never reused: someone else may be tracing in it) and removed.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <ringscope/error.hpp>
#include <ringscope/tracefs.hpp>

#include "framework/capture/event_selection.hpp"

namespace ringscope::capture {

struct TraceSetup {
    std::string root;                 // tracefs mount ("" = find it)
    std::string instance;             // "" = the top buffer
    std::vector<std::string> events;  // -e arguments
    uint64_t buffer_kb = 0;           // 0 = leave as it is
    std::string clock;                // "" = leave as it is
};

class TracingSession {
  public:
    // Prepares the buffer with tracing off: events enabled, size and clock set, buffer cleared.
    // On an error, what was changed is restored before returning it.
    static Expected<std::unique_ptr<TracingSession>> start(const TraceSetup& setup);
    ~TracingSession();  // restore() if not done
    TracingSession(const TracingSession&) = delete;
    TracingSession& operator=(const TracingSession&) = delete;

    const tracefs::Instance& instance() const noexcept { return instance_; }
    const EventSelection& events() const noexcept { return events_; }
    const std::vector<int>& cpus() const noexcept { return cpus_; }
    Status set_tracing(bool on) const { return instance_.set_tracing_on(on); }

    // Puts everything back (the instance's readers must be closed first). Idempotent; returns the
    // first error but tries every step.
    Status restore();

  private:
    explicit TracingSession(tracefs::Instance inst) : instance_(std::move(inst)) {}
    Status configure(const TraceSetup& setup);

    tracefs::Instance instance_;
    EventSelection events_;
    std::vector<int> cpus_;
    bool created_ = false;
    bool restored_ = false;
    // Top buffer only: what was there before.
    std::optional<bool> saved_on_;
    std::optional<std::vector<std::string>> saved_events_;
    std::optional<uint64_t> saved_size_kb_;
    std::optional<std::string> saved_clock_;
};

}  // namespace ringscope::capture
