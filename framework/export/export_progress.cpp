#include "framework/export/export_progress.hpp"

#include <unistd.h>

#include "framework/sinks/progress_bar.hpp"

namespace ringscope::exporter {

ExportProgress::ExportProgress(const ExportCounters& counters, uint64_t files, uint64_t total_bytes,
                               bool enabled, std::FILE* out)
    : counters_(counters),
      files_(files),
      total_bytes_(total_bytes),
      enabled_(enabled && ::isatty(::fileno(out))),
      out_(out),
      start_(std::chrono::steady_clock::now()) {
    if (enabled_) thread_ = std::thread([this] { loop(); });
}

ExportProgress::~ExportProgress() {
    if (!enabled_) return;
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
    clear_line();
}

void ExportProgress::loop() {
    std::unique_lock lock(mutex_);
    while (!wake_.wait_for(lock, std::chrono::milliseconds(100), [this] { return stop_; })) draw();
}

void ExportProgress::draw() {
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const uint64_t in = counters_.input_bytes, sent = counters_.sent_bytes, events = counters_.events;
    // The bytes sent move with every batch; the input's only when a file is done (a single file
    // would show "0 KB" to the end).
    std::fprintf(
        out_, "\r\033[Kexport %llu/%llu files (%s/%s), %s sent, %llu events, %.0f events/s, %.1f MB/s sent",
        static_cast<unsigned long long>(counters_.files_done.load()), static_cast<unsigned long long>(files_),
        sinks::ProgressBar::bytes_text(in).c_str(), sinks::ProgressBar::bytes_text(total_bytes_).c_str(),
        sinks::ProgressBar::bytes_text(sent).c_str(), static_cast<unsigned long long>(events),
        secs > 0 ? events / secs : 0.0, secs > 0 ? sent / secs / 1e6 : 0.0);
    std::fflush(out_);
    drawn_ = true;
}

void ExportProgress::clear_line() {
    if (!enabled_ || !drawn_) return;
    std::fputs("\r\033[K", out_);
    std::fflush(out_);
    drawn_ = false;
}

}  // namespace ringscope::exporter
