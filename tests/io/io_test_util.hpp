// Helpers shared by the io tests.
#pragma once

#include "framework/io/trace_dat_reader.hpp"

#include <gtest/gtest.h>

#include <unistd.h>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <span>
#include <sstream>
#include <string>
#include <vector>
#include "tests/support/file_text.hpp"

namespace iotest {

using ringscope::test::read_file;

inline std::string data(const std::string& rel) {
    return std::string(RINGSCOPE_TEST_DATA_DIR) + "/" + rel;
}

inline std::vector<uint8_t> slurp_bytes(const std::string& path) {
    std::string s = read_file(path);
    return std::vector<uint8_t>(s.begin(), s.end());
}

// A fresh directory under the build tree, removed with the object.
class TempDir {
  public:
    TempDir() {
        std::string tmpl = std::string(RINGSCOPE_BINARY_DIR) + "/io-test-XXXXXX";
        std::vector<char> buf(tmpl.begin(), tmpl.end());
        buf.push_back('\0');
        const char* d = mkdtemp(buf.data());
        path_ = d ? d : "";
    }
    ~TempDir() {
        std::error_code ec;
        if (!path_.empty()) std::filesystem::remove_all(path_, ec);
    }
    std::string file(const std::string& name) const { return path_ + "/" + name; }
    bool ok() const { return !path_.empty(); }

  private:
    std::string path_;
};

// stdout of a shell command, and whether it exited 0.
inline std::pair<bool, std::string> run(const std::string& cmd) {
    std::string out;
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return {false, out};
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    int rc = pclose(p);
    return {rc == 0, out};
}

inline bool have_trace_cmd() {
    return run("command -v trace-cmd >/dev/null 2>&1").first;
}

// Counts the data records of one ring-buffer sub-buffer (64-bit kernel layout: u64 timestamp,
// u64 commit, data), independently of the engine, to check that pages arrive complete.
inline int count_records(std::span<const uint8_t> page, size_t commit_size = 8) {
    auto rd32 = [&](size_t at) {
        uint32_t v;
        std::memcpy(&v, page.data() + at, 4);
        return v;
    };
    uint64_t commit = 0;
    std::memcpy(&commit, page.data() + 8, commit_size);
    commit &= (1u << 27) - 1;
    const size_t begin = 8 + commit_size;
    const size_t end = std::min<size_t>(page.size(), begin + commit);
    int n = 0;
    for (size_t at = begin; at + 4 <= end;) {
        const uint32_t h = rd32(at);
        const uint32_t type_len = h & 31;
        if (type_len == 29) {  // padding: the rest of the page when the delta is 0
            if ((h >> 5) == 0 || at + 8 > end) break;
            at += 4 + rd32(at + 4);
        } else if (type_len == 30 || type_len == 31) {
            at += 8;
        } else if (type_len == 0) {
            if (at + 8 > end) break;
            const uint32_t len = rd32(at + 4);
            if (len < 4) break;
            at += 4 + ((len + 3) & ~3u);
            ++n;
        } else {
            at += 4 + type_len * 4;
            ++n;
        }
    }
    return n;
}

// Every page of one CPU, copied (spans are only valid until the next call).
inline std::vector<std::vector<uint8_t>> all_pages(ringscope::io::CpuPageReader& r) {
    std::vector<std::vector<uint8_t>> out;
    for (;;) {
        auto p = r.next();
        EXPECT_TRUE(p) << (p ? "" : p.error().to_string());
        if (!p || p->empty()) break;
        out.emplace_back(p->begin(), p->end());
    }
    return out;
}

// CPU id -> pages, for every CPU of buffer B.
inline std::map<uint32_t, std::vector<std::vector<uint8_t>>> buffer_pages(
    const ringscope::io::TraceDatReader& r, size_t b) {
    std::map<uint32_t, std::vector<std::vector<uint8_t>>> out;
    for (size_t c = 0; c < r.buffers()[b].cpus.size(); ++c) {
        auto p = r.cpu_pages(b, c);
        EXPECT_TRUE(p) << (p ? "" : p.error().to_string());
        if (p) out[p->cpu()] = all_pages(*p);
    }
    return out;
}

}  // namespace iotest
