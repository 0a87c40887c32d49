// An output written under a temporary name in its own folder and renamed over the final name only
// when complete, so a run that fails or is killed never leaves a half-written file behind.
//
// The temporary file is created exclusively (O_EXCL, a random suffix: nothing planted under its
// name is followed) and is removed on every exit path: by the destructor, and by a SIGINT, SIGTERM
// or SIGHUP handler that unlinks every temporary file still open and then dies of the signal as it
// would have. The rename refuses to replace anything but a regular file (a device node stays).
#pragma once

#include <cstdio>
#include <string>

#include <ringscope/error.hpp>

namespace ringscope::io {

class AtomicOutput {
  public:
    explicit AtomicOutput(std::string path);
    AtomicOutput(const AtomicOutput&) = delete;
    AtomicOutput& operator=(const AtomicOutput&) = delete;
    ~AtomicOutput();  // removes the temporary file unless committed

    const std::string& path() const noexcept { return path_; }
    // Empty until create() (or open()) made the file.
    const std::string& temp_path() const noexcept { return temp_; }
    // Creates the empty temporary file, for writers that open it by name themselves (SQLite).
    Status create();
    // Creates the temporary file and opens it for writing.
    Expected<std::FILE*> open();
    // Closes what open() opened and reports a failed write; the final name is untouched.
    Status close();
    // close(), then renames over the final name.
    Status commit();

  private:
    std::string path_, temp_;
    std::FILE* file_ = nullptr;
    int slot_ = -1;  // in the signal handler's list of files to remove
    bool committed_ = false;
};

// Writes `text` to `path` through an AtomicOutput.
Status write_file_atomically(const std::string& path, std::string_view text);

}  // namespace ringscope::io
