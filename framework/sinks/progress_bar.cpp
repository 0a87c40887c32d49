#include "framework/sinks/progress_bar.hpp"

#include <unistd.h>

namespace ringscope::sinks {

ProgressBar::ProgressBar(bool enabled, std::FILE* out)
    : enabled_(enabled && ::isatty(::fileno(out))), out_(out) {}

ProgressBar::~ProgressBar() {
    finish();
}

std::string ProgressBar::bytes_text(uint64_t n) {
    char buf[32];
    if (n >= 1000000)
        std::snprintf(buf, sizeof buf, "%.1f MB", n / 1e6);
    else
        std::snprintf(buf, sizeof buf, "%.0f KB", n / 1e3);
    return buf;
}

void ProgressBar::stage(std::string name, uint64_t total_bytes) {
    if (!enabled_) return;
    finish();
    stage_ = std::move(name);
    total_ = total_bytes;
    bytes_ = events_ = 0;
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
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    double frac = total_ ? std::min(1.0, static_cast<double>(bytes_) / total_) : 0.0;
    constexpr int kWidth = 24;
    int fill = static_cast<int>(frac * kWidth);
    std::string bar(fill, '#');
    bar.append(kWidth - fill, ' ');
    double rate = secs > 0 ? events_ / secs : 0;
    if (total_ == 0 && events_ == 0) {
        // A stage that reports nothing (an analysis run through its plugin): its name and time.
        std::fprintf(out_, "\r\033[K%-16.16s running, %.1fs", stage_.c_str(), secs);
    } else if (bytes_ == 0) {
        // Position unknown: size, events, rate and elapsed time.
        std::fprintf(out_, "\r\033[K%-16.16s %s input, %llu events, %.0f events/s, %.1fs", stage_.c_str(),
                     bytes_text(total_).c_str(), static_cast<unsigned long long>(events_), rate, secs);
    } else {
        std::string eta = "--";
        if (frac > 0.01 && secs > 0) eta = std::to_string(static_cast<int>(secs / frac - secs)) + "s";
        std::fprintf(out_, "\r\033[K%-16.16s [%s] %3d%% %s/%s %.0f events/s ETA %s", stage_.c_str(),
                     bar.c_str(), static_cast<int>(frac * 100), bytes_text(bytes_).c_str(),
                     bytes_text(total_).c_str(), rate, eta.c_str());
    }
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
