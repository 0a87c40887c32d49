// The scratch files of a capture beside the output: OUTPUT.cpuN (one per CPU, whole sub-buffers)
// and OUTPUT.reserve, room set aside at the start so that the trace.dat can still be written when
// the disk fills during the recording.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <ringscope/error.hpp>

#include "framework/capture/trace_assembler.hpp"

namespace ringscope::capture {

class CaptureFiles {
  public:
    // Errors name the file that could not be created (a full disk is reported here when even the
    // reserve does not fit).
    // BUFFER_INDEX and NAME: which buffer of the capture the CPU files are for (cpu_scratch_path).
    static Expected<CaptureFiles> create(const std::string& output, const std::vector<int>& cpus,
                                         uint64_t reserve_bytes, size_t buffer_index = 0,
                                         const std::string& name = "");
    CaptureFiles(CaptureFiles&& o) noexcept;
    CaptureFiles& operator=(CaptureFiles&&) = delete;
    ~CaptureFiles();  // closes and removes everything

    int fd(size_t i) const noexcept { return fds_[i]; }
    size_t size() const noexcept { return files_.size(); }
    const std::vector<CpuDataFile>& files() const noexcept { return files_; }
    // Another scratch file (OUTPUT.head), removed with the others and flock()ed until then: while
    // it is held the recording runs (`record --recover` refuses it).
    Status adopt_locked(std::string path);
    void close_fds() noexcept;
    void release_reserve() noexcept;  // frees the reserved room
    void remove_all() noexcept;

  private:
    CaptureFiles() = default;
    std::vector<CpuDataFile> files_;
    std::vector<int> fds_;
    std::string reserve_;
    std::vector<std::string> extra_;
    std::vector<int> extra_fds_;
};

}  // namespace ringscope::capture
