// The progress line of `ringscope export` on stderr: files done, events sent, input and upload
// MB/s. Redrawn by its own thread ten times a second, only when stderr is a terminal.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <thread>

#include "framework/export/file_exporter.hpp"

namespace ringscope::exporter {

class ExportProgress {
  public:
    ExportProgress(const ExportCounters& counters, uint64_t files, uint64_t total_bytes, bool enabled,
                   std::FILE* out = stderr);
    ~ExportProgress();  // stops the thread and clears the line
    ExportProgress(const ExportProgress&) = delete;
    ExportProgress& operator=(const ExportProgress&) = delete;

    // Clears the line so that a message can be printed (then the next redraw restores it).
    void clear_line();
    std::mutex& output_mutex() noexcept { return mutex_; }

  private:
    void loop();
    void draw();

    const ExportCounters& counters_;
    uint64_t files_, total_bytes_;
    bool enabled_;
    std::FILE* out_;
    std::chrono::steady_clock::time_point start_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stop_ = false;
    bool drawn_ = false;
    std::thread thread_;
};

}  // namespace ringscope::exporter
