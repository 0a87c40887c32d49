#include "framework/sinks/progress_bar.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>

namespace ringscope::sinks {

ProgressBar::ProgressBar(bool enabled, std::FILE* out)
    : enabled_(enabled && ::isatty(::fileno(out))), out_(out) {}

ProgressBar::~ProgressBar() {
    finish();
}

std::string ProgressBar::bytes_text(uint64_t n) {
    char buf[32];
    if (n >= 1000000)
        std::snprintf(buf, sizeof buf, "%.1f MB", static_cast<double>(n) / 1e6);
    else
        std::snprintf(buf, sizeof buf, "%.0f KB", static_cast<double>(n) / 1e3);
    return buf;
}

std::string ProgressBar::duration_text(double seconds) {
    seconds = std::max(0.0, seconds);
    char buf[48];
    if (seconds < 9.95) {  // short stages: tenths, so the last seconds still count down
        std::snprintf(buf, sizeof buf, "%.1fs", seconds);
        return buf;
    }
    auto s = static_cast<uint64_t>(std::llround(seconds));
    if (s < 60)
        std::snprintf(buf, sizeof buf, "%llus", static_cast<unsigned long long>(s));
    else if (s < 3600)
        std::snprintf(buf, sizeof buf, "%llum%02llus", static_cast<unsigned long long>(s / 60),
                      static_cast<unsigned long long>(s % 60));
    else
        std::snprintf(buf, sizeof buf, "%lluh%02llum", static_cast<unsigned long long>(s / 3600),
                      static_cast<unsigned long long>(s / 60 % 60));
    return buf;
}

std::optional<double> ProgressBar::eta_seconds(const ProgressState& s) {
    // Too early: the first pages and the first fraction of a second say little about the rate.
    if (s.bytes_total == 0 || s.bytes_done == 0 || s.seconds < 0.2) return std::nullopt;
    if (s.bytes_done >= s.bytes_total) return 0.0;
    double rate = static_cast<double>(s.bytes_done) / s.seconds;
    return static_cast<double>(s.bytes_total - s.bytes_done) / rate;
}

std::string ProgressBar::line(const ProgressState& s) {
    char buf[256];
    if (s.bytes_total == 0 && s.events == 0) {
        // A stage that reports nothing (an analysis run through its plugin): its name and time.
        std::snprintf(buf, sizeof buf, "%-16.16s running, %s", s.stage.c_str(),
                      duration_text(s.seconds).c_str());
        return buf;
    }
    const double rate = s.seconds > 0 ? static_cast<double>(s.events) / s.seconds : 0;
    if (s.bytes_total == 0) {
        std::snprintf(buf, sizeof buf, "%-16.16s %llu events, %.0f events/s, %s", s.stage.c_str(),
                      static_cast<unsigned long long>(s.events), rate, duration_text(s.seconds).c_str());
        return buf;
    }
    const double frac = std::min(1.0, static_cast<double>(s.bytes_done) / static_cast<double>(s.bytes_total));
    constexpr int kWidth = 24;
    const int fill = static_cast<int>(frac * kWidth);
    std::string bar(static_cast<size_t>(fill), '#');
    bar.append(static_cast<size_t>(kWidth - fill), ' ');
    auto eta = eta_seconds(s);
    std::snprintf(buf, sizeof buf, "%-16.16s [%s] %3d%% %s/%s %.0f events/s ETA %s", s.stage.c_str(),
                  bar.c_str(), static_cast<int>(frac * 100), bytes_text(s.bytes_done).c_str(),
                  bytes_text(s.bytes_total).c_str(), rate, eta ? duration_text(*eta).c_str() : "--");
    return buf;
}

void ProgressBar::stage(std::string name) {
    if (!enabled_) return;
    finish();
    state_ = ProgressState{};
    state_.stage = std::move(name);
    start_ = last_draw_ = std::chrono::steady_clock::now();
    draw();
}

void ProgressBar::maybe_draw() {
    auto now = std::chrono::steady_clock::now();
    if (now - last_draw_ < std::chrono::milliseconds(100)) return;
    last_draw_ = now;
    draw();
}

void ProgressBar::draw() {
    state_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::fprintf(out_, "\r\033[K%s", line(state_).c_str());
    std::fflush(out_);
    drawn_ = true;
}

void ProgressBar::finish() {
    if (enabled_ && drawn_) {
        std::fputs("\r\033[K", out_);
        std::fflush(out_);
    }
    drawn_ = false;
}

}  // namespace ringscope::sinks
