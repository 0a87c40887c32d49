// Corruption sweep: every committed trace.dat, truncated at each section boundary and at random
// offsets, and with random bytes flipped (seeded), is given to `ringscope report`. Each run must end
// on its own within a time bound, without a signal or a sanitizer report, and either succeed or end
// with a one-line error naming the file and where in it (byte offset, or line:column of a text).
//
// Tunable: RINGSCOPE_SWEEP_SCALE=N multiplies the random cases (default 1: a few minutes in CI under
// ASan), RINGSCOPE_SWEEP_SEED=S changes the seed (default 1), RINGSCOPE_SWEEP_MAX_BOUNDARIES=N caps
// the boundary truncations per file (default 48, evenly spread).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "framework/io/trace_dat_reader.hpp"
#include "tests/robustness/child_process.hpp"

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using ringscope::testing::ChildResult;

namespace {

const char* const kTraces[] = {
    "traces/basic.dat",        "traces/dropped.dat",   "traces/formats-none.dat", "traces/formats-v6.dat",
    "traces/formats-zstd.dat", "traces/full.dat",      "traces/instances.dat",    "io/multi-v6.dat",
    "io/multi-v7-none.dat",    "io/multi-v7-zstd.dat", "kvm/kvm-extra.dat",       "kvm-agent/host.dat",
    "kvm-agent/host-vm2.dat",
};

long env_long(const char* name, long def) {
    const char* v = std::getenv(name);
    return v && *v ? std::strtol(v, nullptr, 10) : def;
}

std::vector<uint8_t> read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const uint8_t* data, size_t size) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
}

// The v6/v7 header fields before the first section, walked by hand (the reader does not expose
// them): magic, version string, endian, long size, page size, then for v7 the compression strings
// and the options offset, for v6 the header_page .. saved cmdlines texts and the CPU count.
void header_boundaries(const std::vector<uint8_t>& b, std::set<uint64_t>& out) {
    size_t p = 10;
    out.insert(p);
    auto cstr = [&]() {
        while (p < b.size() && b[p]) ++p;
        ++p;
        out.insert(p);
    };
    auto skip = [&](size_t n) {
        p += n;
        out.insert(p);
    };
    auto uint = [&](size_t n) -> uint64_t {
        uint64_t v = 0;
        if (p + n > b.size()) return 0;
        std::memcpy(&v, &b[p], n);  // the committed traces are little-endian
        skip(n);
        return v;
    };
    if (b.size() < 10) return;
    const size_t version_at = p;
    cstr();
    const int version = version_at < b.size() ? std::atoi(reinterpret_cast<const char*>(&b[version_at])) : 0;
    skip(1);
    skip(1);
    skip(4);
    if (version >= 7) {
        cstr();
        cstr();
        skip(8);
        return;
    }
    for (int i = 0; i < 2 && p < b.size(); ++i) {  // header_page, header_event
        cstr();
        skip(uint(8));
    }
    for (uint64_t n = uint(4); n-- && p < b.size();) skip(uint(8));  // ftrace formats
    for (uint64_t s = uint(4); s-- && p < b.size();) {               // event systems
        cstr();
        for (uint64_t n = uint(4); n-- && p < b.size();) skip(uint(8));
    }
    skip(uint(4));  // kallsyms
    skip(uint(4));  // printk formats
    skip(uint(8));  // saved cmdlines
    skip(4);        // CPU count
}

// Offsets where a section, buffer or CPU's data starts or ends, and the first page inside each CPU.
// REFERENCED_END: the end of the last of them (bytes after it are not part of the trace).
std::vector<uint64_t> boundaries(const std::string& path, const std::vector<uint8_t>& bytes,
                                 uint64_t& referenced_end) {
    std::set<uint64_t> at;
    header_boundaries(bytes, at);
    uint64_t needed = at.empty() ? 0 : *at.rbegin();
    auto reader = ringscope::io::TraceDatReader::open(path);
    if (reader) {
        for (const auto& s : reader->sections()) {
            at.insert(s.offset);
            at.insert(s.offset + 16);
            at.insert(s.offset + 16 + s.size);
            // The STRINGS section (15) only names the sections: trace-cmd report never reads it,
            // so losing it is no error.
            if (s.id != 15) needed = std::max<uint64_t>(needed, s.offset + 16 + s.size);
        }
        for (const auto& buf : reader->buffers()) {
            at.insert(buf.section_offset);
            for (const auto& c : buf.cpus) {
                at.insert(c.offset);
                at.insert(c.offset + c.size);
                needed = std::max<uint64_t>(needed, c.offset + c.size);
                if (buf.page_size && c.size > buf.page_size) at.insert(c.offset + buf.page_size);
            }
        }
    }
    referenced_end = reader ? std::min<uint64_t>(needed, bytes.size()) : bytes.size();
    std::vector<uint64_t> v;
    for (uint64_t o : at)
        if (o > 0 && o < bytes.size()) v.push_back(o);
    return v;
}

class CorruptionSweep : public ::testing::TestWithParam<const char*> {
  protected:
    void SetUp() override {
        cli_ = std::string(RINGSCOPE_BINARY_DIR) + "/ringscope";
        if (!fs::exists(cli_)) GTEST_SKIP() << cli_ << " is not built";
        source_ = std::string(RINGSCOPE_TEST_DATA_DIR) + "/" + GetParam();
        if (!fs::exists(source_)) GTEST_SKIP() << source_ << " is absent";
        dir_ = fs::path(::testing::TempDir()) / ("ringscope-sweep-" + std::to_string(getpid()));
        fs::create_directories(dir_);
    }
    void TearDown() override {
        std::error_code ec;
        if (!dir_.empty()) fs::remove_all(dir_, ec);
    }

    ChildResult report(const std::string& file, std::chrono::milliseconds timeout) {
        return ringscope::testing::run_child({cli_, "report", file}, ringscope::testing::sanitizer_env(),
                                             timeout, "", (dir_ / "stderr").string());
    }

    // One corrupted variant: writes it, runs report and checks the outcome.
    // A file truncated before its last referenced byte has lost data, so it must end with the error
    // (after printing what is valid); bytes after it (trace-cmd leaves some after the last options
    // section) are not read by trace-cmd either. A flipped byte may land in a field nothing checks,
    // so a clean exit is allowed there.
    void check(const std::string& what, const std::vector<uint8_t>& bytes, size_t size) {
        const bool truncated = size < referenced_end_;
        const std::string file = (dir_ / (fs::path(GetParam()).stem().string() + ".dat")).string();
        write_bytes(file, bytes.data(), size);
        const ChildResult r = report(file, timeout_);
        ++cases_;
        const std::string fault = r.fault();
        if (!fault.empty()) {
            keep_reproducer(what, bytes, size);
            ++failures_;
            ADD_FAILURE() << GetParam() << " " << what << ": " << fault << "\n" << r.err.substr(0, 4000);
            return;
        }
        if (r.exit_code == 0) {
            if (!truncated) return;
            keep_reproducer(what, bytes, size);
            ++failures_;
            ADD_FAILURE() << GetParam() << " " << what << ": file truncated to " << size << " of "
                          << bytes.size() << " bytes, yet report exits 0 without an error; stderr:\n"
                          << r.err.substr(0, 2000);
            return;
        }
        // The last line on stderr is the error: "ringscope report: FILE: offset N (0x..): what" or
        // "FILE:LINE:COL: what" for a text inside the file.
        std::string err = r.err;
        while (!err.empty() && err.back() == '\n') err.pop_back();
        const std::string last = err.substr(err.rfind('\n') == std::string::npos ? 0 : err.rfind('\n') + 1);
        static const std::regex where("(offset [0-9]+)|(:[0-9]+:[0-9]+:)|(line [0-9]+)");
        if (last.find(file) == std::string::npos || !std::regex_search(last, where)) {
            keep_reproducer(what, bytes, size);
            ++failures_;
            ADD_FAILURE() << GetParam() << " " << what << ": exit " << r.exit_code
                          << " without an error naming the file and offset; stderr:\n"
                          << r.err.substr(0, 2000);
        }
    }

    // A failing input is copied next to the build for a regression test (tests/robustness/regressions).
    void keep_reproducer(const std::string& what, const std::vector<uint8_t>& bytes, size_t size) {
        fs::path dir = fs::path(RINGSCOPE_BINARY_DIR) / "tests" / "robustness-failures";
        std::error_code ec;
        fs::create_directories(dir, ec);
        std::string name = fs::path(GetParam()).stem().string() + "-" + what;
        for (char& c : name)
            if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-') c = '_';
        write_bytes((dir / (name + ".dat")).string(), bytes.data(), size);
    }

    std::string cli_, source_;
    fs::path dir_;
    std::chrono::milliseconds timeout_{60s};
    uint64_t referenced_end_ = 0;  // end of the last section or CPU data the file points to
    int cases_ = 0;
    int failures_ = 0;
};

TEST_P(CorruptionSweep, TruncatedAndFlippedInputsFailCleanly) {
    const std::vector<uint8_t> original = read_bytes(source_);
    ASSERT_GT(original.size(), 64u);

    // The intact file must report cleanly; its run time sets the hang bound (sanitized builds are
    // slow, so the bound is relative).
    const ChildResult clean = report(source_, 300s);
    ASSERT_EQ(clean.fault(), "") << clean.err;
    ASSERT_EQ(clean.exit_code, 0) << clean.err;
    timeout_ = std::max<std::chrono::milliseconds>(
        30s, std::chrono::milliseconds(static_cast<long>(clean.seconds * 10 * 1000)));

    const long scale = std::max(0L, env_long("RINGSCOPE_SWEEP_SCALE", 1));
    const long max_bounds = std::max(1L, env_long("RINGSCOPE_SWEEP_MAX_BOUNDARIES", 48));
    std::mt19937_64 rng(static_cast<uint64_t>(env_long("RINGSCOPE_SWEEP_SEED", 1)) * 1000003u +
                        std::hash<std::string>{}(GetParam()));

    // Truncation at every boundary (evenly thinned to max_bounds), and one byte short of it.
    std::vector<uint64_t> bounds = boundaries(source_, original, referenced_end_);
    ASSERT_GE(bounds.size(), 5u) << "no structure found in " << source_;
    std::vector<uint64_t> chosen;
    for (long i = 0; i < std::min<long>(max_bounds, static_cast<long>(bounds.size())); ++i)
        chosen.push_back(
            bounds[static_cast<size_t>(i) * bounds.size() /
                   static_cast<size_t>(std::min<long>(max_bounds, static_cast<long>(bounds.size())))]);
    for (uint64_t b : chosen) {
        check("truncate-" + std::to_string(b), original, b);
        if (failures_ >= 8) return;  // enough to go on; the rest would mostly repeat them
    }
    for (size_t i = 0; i < chosen.size(); i += 4)
        check("truncate-" + std::to_string(chosen[i] - 1), original, chosen[i] - 1);

    // Random truncations.
    const uint64_t metadata_end = [&] {
        uint64_t first_data = original.size();
        auto reader = ringscope::io::TraceDatReader::open(source_);
        if (reader)
            for (const auto& buf : reader->buffers())
                for (const auto& c : buf.cpus) first_data = std::min(first_data, c.offset);
        return std::max<uint64_t>(first_data, 64);
    }();
    for (long i = 0; i < 4 * scale; ++i) {
        const uint64_t at = 1 + rng() % (original.size() - 1);
        check("truncate-" + std::to_string(at), original, at);
    }
    // Flipped bytes: half of the cases inside the metadata (formats, options, CPU tables), where a
    // flip changes how everything after is read; the others anywhere, mostly in event data.
    for (long i = 0; i < 16 * scale; ++i) {
        std::vector<uint8_t> bytes = original;
        const int flips = 1 + static_cast<int>(rng() % 8);
        std::string what = "flip";
        for (int f = 0; f < flips; ++f) {
            const uint64_t range = (i % 2 == 0) ? metadata_end : bytes.size();
            const uint64_t at = rng() % range;
            const uint8_t mask = static_cast<uint8_t>(1 + rng() % 255);
            bytes[at] ^= mask;
            what += "-" + std::to_string(at) + "x" + std::to_string(mask);
        }
        check(what.substr(0, 120), bytes, bytes.size());
    }
    RecordProperty("cases", cases_);
    std::printf("%s: %d corrupted variants, hang bound %ld ms\n", GetParam(), cases_,
                static_cast<long>(timeout_.count()));
}

std::string param_name(const ::testing::TestParamInfo<const char*>& info) {
    std::string n = info.param;
    for (char& c : n)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return n;
}

INSTANTIATE_TEST_SUITE_P(CommittedTraces, CorruptionSweep, ::testing::ValuesIn(kTraces), param_name);

}  // namespace
