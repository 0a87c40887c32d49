// Helpers of the ringbuffer tests: files, child processes, dump-pages into a string.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "framework/ringbuffer/page_dump.hpp"
#include "tests/support/shell_command.hpp"

namespace ringscope::test {

inline std::string data_dir() {
    return std::string(RINGSCOPE_TEST_DATA_DIR) + "/ringbuffer";
}

inline std::vector<uint8_t> read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

struct DumpResult {
    std::string out, err;
    int rc = -1;
};

template <class Layout>
DumpResult dump(const std::string& path, const Layout& layout_or_size) {
    DumpResult r;
    std::FILE* out = std::tmpfile();
    std::FILE* err = std::tmpfile();
    r.rc = ringbuffer::dump_pages(path, layout_or_size, out, err);
    for (auto [f, s] : {std::pair{out, &r.out}, std::pair{err, &r.err}}) {
        std::rewind(f);
        char buf[4096];
        size_t n;
        while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s->append(buf, n);
        std::fclose(f);
    }
    return r;
}

inline std::string temp_path(const std::string& name) {
    const char* t = std::getenv("TMPDIR");
    return std::string(t ? t : "/tmp") + "/ringscope_rb_" + std::to_string(getpid()) + "_" + name;
}

}  // namespace ringscope::test
