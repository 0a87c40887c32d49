#include "framework/tracefs/file_io.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ringscope::tracefs {

Expected<std::string> read_text_file(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Error(Errc::io, std::string("cannot open: ") + std::strerror(errno)).in_file(path);
    std::string out;
    char buf[65536];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR) continue;
            const int err = errno;
            ::close(fd);
            return Error(Errc::io, std::string("read failed: ") + std::strerror(err))
                .in_file(path)
                .at_offset(static_cast<int64_t>(out.size()));
        }
        if (n == 0) break;
        out.append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    return out;
}

Status write_text_file(const std::string& path, std::string_view text, bool append) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | (append ? O_APPEND : O_TRUNC));
    if (fd < 0)
        return Error(Errc::io, std::string("cannot open for writing: ") + std::strerror(errno)).in_file(path);
    size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            const int err = errno;
            ::close(fd);
            return Error(Errc::io,
                         "cannot write '" + std::string(text.substr(0, 64)) + "': " + std::strerror(err))
                .in_file(path);
        }
        done += static_cast<size_t>(n);
    }
    if (::close(fd) != 0)
        return Error(Errc::io,
                     "cannot write '" + std::string(text.substr(0, 64)) + "': " + std::strerror(errno))
            .in_file(path);
    return {};
}

}  // namespace ringscope::tracefs
