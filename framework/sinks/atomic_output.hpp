// An output written under a temporary name in its own folder and renamed over the final name only
// when complete, so a run that fails or is killed never leaves a half-written file behind.
#pragma once

#include <cstdio>
#include <string>

#include <ringscope/error.hpp>

namespace ringscope::sinks {

class AtomicOutput {
  public:
    explicit AtomicOutput(std::string path);
    AtomicOutput(const AtomicOutput&) = delete;
    AtomicOutput& operator=(const AtomicOutput&) = delete;
    ~AtomicOutput();  // removes the temporary file unless committed

    const std::string& path() const noexcept { return path_; }
    const std::string& temp_path() const noexcept { return temp_; }
    // Opens the temporary file for writing (for writers that do not open it themselves).
    Expected<std::FILE*> open();
    // Closes what open() opened, then renames; an error leaves the final name untouched.
    Status commit();

  private:
    std::string path_, temp_;
    std::FILE* file_ = nullptr;
    bool committed_ = false;
};

// Writes `text` to `path` through an AtomicOutput.
Status write_file_atomically(const std::string& path, std::string_view text);

}  // namespace ringscope::sinks
