#include "framework/sinks/atomic_output.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <unistd.h>

namespace ringscope::sinks {

AtomicOutput::AtomicOutput(std::string path) : path_(std::move(path)) {
    std::filesystem::path p(path_);
    // Same folder, so the rename stays on one file system and is atomic; hidden, pid-unique.
    temp_ = (p.parent_path() / ("." + p.filename().string() + ".tmp." + std::to_string(::getpid()))).string();
}

AtomicOutput::~AtomicOutput() {
    if (file_) std::fclose(file_);
    if (!committed_) ::unlink(temp_.c_str());
}

Expected<std::FILE*> AtomicOutput::open() {
    file_ = std::fopen(temp_.c_str(), "wb");
    if (!file_) return Error(Errc::io, temp_ + ": " + std::strerror(errno));
    return file_;
}

Status AtomicOutput::commit() {
    if (file_) {
        bool bad = std::ferror(file_) != 0;
        int rc = std::fclose(file_);
        file_ = nullptr;
        if (bad || rc != 0) return Error(Errc::io, temp_ + ": write failed: " + std::strerror(errno));
    }
    if (std::rename(temp_.c_str(), path_.c_str()) != 0)
        return Error(Errc::io, path_ + ": rename from " + temp_ + " failed: " + std::strerror(errno));
    committed_ = true;
    return {};
}

Status write_file_atomically(const std::string& path, std::string_view text) {
    AtomicOutput out(path);
    auto f = out.open();
    if (!f) return f.error();
    std::fwrite(text.data(), 1, text.size(), *f);
    return out.commit();
}

}  // namespace ringscope::sinks
