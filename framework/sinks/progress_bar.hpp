// Progress on stderr while a run works: a bar with bytes done, events/s and ETA, redrawn at most
// ten times a second, only when stderr is a terminal and the run is not --quiet.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace ringscope::sinks {

class ProgressBar {
  public:
    ProgressBar(bool enabled, std::FILE* out = stderr);
    ~ProgressBar();

    bool enabled() const noexcept { return enabled_; }
    // A new stage ("sqlite", "sched.latency", ...) with its total work in bytes (0 = unknown).
    void stage(std::string name, uint64_t total_bytes);
    // Cheap per event: redraws only when due.
    void update(uint64_t bytes_done, uint64_t events) {
        bytes_ = bytes_done;
        events_ = events;
        if (enabled_ && (++ticks_ & 1023) == 0) maybe_draw();
    }
    void finish();

    // "12.3 MB", "456 KB".
    static std::string bytes_text(uint64_t n);

  private:
    void maybe_draw();
    void draw();

    bool enabled_;
    std::FILE* out_;
    std::string stage_;
    uint64_t total_ = 0, bytes_ = 0, events_ = 0, ticks_ = 0;
    std::chrono::steady_clock::time_point start_, last_draw_;
    bool drawn_ = false;
};

}  // namespace ringscope::sinks
