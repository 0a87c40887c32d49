// Progress on stderr while a run works: a bar with the CPU-data bytes read, events/s and an ETA
// (remaining bytes / byte rate so far), redrawn at most ten times a second, only when stderr is a
// terminal and the run is not --quiet.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

namespace ringscope::sinks {

// What one redraw shows.
struct ProgressState {
    std::string stage;
    uint64_t bytes_done = 0, bytes_total = 0;  // bytes_total 0: the stage reports no position
    uint64_t events = 0;
    double seconds = 0;  // since the stage began
};

class ProgressBar {
  public:
    ProgressBar(bool enabled, std::FILE* out = stderr);
    ~ProgressBar();

    bool enabled() const noexcept { return enabled_; }
    // A new stage ("events", "ipt.summary", ...); its position is unknown until update() says.
    void stage(std::string name);
    // Cheap: redraws only when due.
    void update(uint64_t events, uint64_t bytes_done, uint64_t bytes_total) {
        state_.events = events;
        state_.bytes_done = bytes_done;
        state_.bytes_total = bytes_total;
        if (enabled_) maybe_draw();
    }
    void finish();

    // The line drawn for `s` (no terminal codes).
    static std::string line(const ProgressState& s);
    // Seconds left at the byte rate so far; nullopt until enough is read to tell.
    static std::optional<double> eta_seconds(const ProgressState& s);
    // "0.4s", "42s", "3m05s", "2h07m".
    static std::string duration_text(double seconds);
    // "12.3 MB", "456 KB".
    static std::string bytes_text(uint64_t n);

  private:
    void maybe_draw();
    void draw();

    bool enabled_;
    std::FILE* out_;
    ProgressState state_;
    std::chrono::steady_clock::time_point start_, last_draw_;
    bool drawn_ = false;
};

}  // namespace ringscope::sinks
