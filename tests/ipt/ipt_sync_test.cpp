// Sync backward against sync forward (issue #28 item 5): backward visits the PSBs forward visits,
// in reverse order, with the same answers, errors included, and stops. And `ipt sync` does work
// linear in the stream's size on PSB floods (issue #25 item 8): measured as the bytes its sync
// calls search and decode, not as time. The floods are the kinds bench/ipt/make_streams.py writes.
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "ipt/errors.hpp"
#include "ipt/query_decoder.hpp"
#include "ipt/sync_report.hpp"
#include "ipt/trace_file.hpp"
#include "ipt_test_bytes.hpp"

using namespace ringscope::ipt;
namespace fs = std::filesystem;

namespace {

using namespace ipt_test;

const Bytes kFup = {0x7d, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00};  // sext-48 0x1000
const Bytes kModeExec = {0x99, 0x01};
const Bytes kBadOpcode = {0x02, 0xff};  // an extended opcode nobody defines
const Bytes kTnt = {0x0a};
const Bytes kPad = {0x00};

struct Visit {
    int status;
    uint64_t offset;
    uint64_t ip;
    bool operator==(const Visit&) const = default;
};

std::string show(const std::vector<Visit>& visits) {
    std::string out;
    char line[96];
    for (const Visit& v : visits) {
        std::snprintf(line, sizeof line, "%s@0x%" PRIx64 " st=0x%x ip=0x%" PRIx64 "\n",
                      v.status < 0 ? pt_error_name(v.status) : "ok", v.offset,
                      v.status < 0 ? 0u : static_cast<unsigned>(v.status), v.ip);
        out += line;
    }
    return out;
}

// Every answer of one direction until pte_eos; a call that returns no offset, or an offset that
// does not move on, fails the test (that is a loop) and ends the walk.
std::vector<Visit> walk(const Config& config, bool forward, uint64_t* work = nullptr) {
    QueryDecoder d(config);
    std::vector<Visit> out;
    for (size_t i = 0; i <= static_cast<size_t>(config.end - config.begin); ++i) {
        uint64_t ip = 0, offset = 0;
        int status = forward ? d.sync_forward(&ip) : d.sync_backward(&ip);
        if (status == -pte_eos) break;
        if (d.get_sync_offset(offset) < 0) {
            ADD_FAILURE() << "no sync offset after " << pt_error_name(status);
            break;
        }
        if (!out.empty() && (forward ? offset <= out.back().offset : offset >= out.back().offset)) {
            ADD_FAILURE() << (forward ? "forward" : "backward") << " did not move on from 0x" << std::hex
                          << offset << ":\n"
                          << show(out);
            break;
        }
        out.push_back({status, offset, status >= 0 && !(status & pts_ip_suppressed) ? ip : 0});
    }
    if (work) *work += d.sync_work();
    return out;
}

// Backward mirrors forward; the number of PSBs forward visited.
size_t expect_mirror(const Config& config, const std::string& name) {
    std::vector<Visit> fwd = walk(config, true);
    std::vector<Visit> back = walk(config, false);
    std::vector<Visit> want(fwd.rbegin(), fwd.rend());
    EXPECT_EQ(show(back), show(want)) << name;
    return fwd.size();
}

// The streams of bench/ipt/make_streams.py's flood kinds, at least size bytes.
Bytes flood(const std::string& kind, size_t size) {
    Bytes unit;
    if (kind == "psbflood") {
        unit = kPsb;
    } else if (kind == "psbplusflood") {
        unit = cat({kPsb, kPsbend});
    } else if (kind == "badpsbflood") {
        unit = cat({kPsb, kModeExec, kFup, kPsbend, kBadOpcode});
    } else if (kind == "psbpairflood") {
        unit = cat({kPsb, kPsb, kPsbend});
    } else if (kind == "shortruns") {
        // Runs of pattern one byte short of a PSB: aligned words of pattern, no run a PSB.
        unit = cat({Bytes(kPsb.begin(), kPsb.end() - 1), kPad});
    } else {
        ADD_FAILURE() << kind;
        return {};
    }
    Bytes out;
    out.reserve(size + unit.size());
    while (out.size() < size) out.insert(out.end(), unit.begin(), unit.end());
    return out;
}

const char* const kFloods[] = {"psbflood", "psbplusflood", "badpsbflood", "psbpairflood", "shortruns"};

TEST(IptSyncMirror, HandMadeStreams) {
    const Bytes good = cat({kPsb, kModeExec, kFup, kPsbend, kTnt});
    const Bytes off = cat({kPsb, kPsbend, kTnt});
    const std::vector<std::pair<std::string, Bytes>> streams = {
        // A PSB+ that fails after its PSBEND (the read-ahead meets a bad packet): libipt 2.0.5 and
        // ringscope before found that PSB again and answered its error twice.
        {"error after psbend", cat({good, cat({kPsb, kPsbend, kBadOpcode}), good})},
        {"error after psbend at the end", cat({good, good, cat({kPsb, kFup, kPsbend, kBadOpcode})})},
        // Bad context inside PSB+ (a TNT), between good segments.
        {"bad context", cat({good, cat({kPsb, kTnt, kPsbend}), off, good})},
        // Back-to-back PSB+s: forward passes over the second (decoded in line by the first).
        {"back to back", cat({off, off, good, good})},
        {"back to back at the end", cat({good, off, off})},
        // Back-to-back PSBs, a PSB+ cut by the end, garbage in front.
        {"psb pair", cat({{0x55, 0x55, 0x55}, kPsb, kPsb, kPsbend, kTnt, good})},
        {"cut by the end", cat({good, kPsb, kModeExec})},
        // The pattern in a PTW payload, its run completed by the PSB after it.
        {"pattern in a payload", cat({good,
                                      {0x02, 0xb2, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82},
                                      kPsb,
                                      kPsbend,
                                      kTnt,
                                      good})},
    };
    size_t visited = 0;
    for (const auto& [name, bytes] : streams) {
        // At each alignment: the PSB search looks at aligned words.
        for (size_t shift = 0; shift < 8; ++shift) {
            Bytes shifted(shift, 0x00);
            shifted.insert(shifted.end(), bytes.begin(), bytes.end());
            Buffer buf(shifted);
            visited += expect_mirror(buf.config, name + " shifted by " + std::to_string(shift));
        }
    }
    EXPECT_GT(visited, 100u);
}

TEST(IptSyncMirror, ErrorAfterPsbendIsAnsweredOnce) {
    Buffer buf(cat({kPsb, kModeExec, kFup, kPsbend, kTnt, kPsb, kPsbend, kBadOpcode, kPsb, kPsbend, kTnt}));
    std::vector<Visit> back = walk(buf.config, false);
    ASSERT_EQ(back.size(), 3u) << show(back);
    EXPECT_EQ(back[1].offset, 0x1cu);
    EXPECT_EQ(back[1].status, -pte_bad_opc);
    EXPECT_EQ(back[2].offset, 0u);
}

TEST(IptSyncMirror, Floods) {
    for (const char* kind : kFloods) {
        Bytes bytes = flood(kind, 4096);
        Buffer buf(bytes);
        expect_mirror(buf.config, kind);
    }
}

// Backward mirrors forward on every .pt file in dir; the streams and the PSBs forward visited.
std::pair<size_t, size_t> expect_mirror_in(const fs::path& dir) {
    size_t streams = 0, visited = 0;
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.path().extension() != ".pt") continue;
        auto bytes = TraceBytes::load(entry.path().string());
        EXPECT_TRUE(bytes) << entry.path();
        if (!bytes) continue;
        Config config;
        config.begin = bytes->begin();
        config.end = bytes->end();
        visited += expect_mirror(config, entry.path().string());
        ++streams;
    }
    return {streams, visited};
}

TEST(IptSyncMirror, CommittedStreams) {
    auto [streams, visited] = expect_mirror_in(fs::path(RINGSCOPE_TEST_DATA_DIR) / "ipt");
    EXPECT_GE(streams, 3u);
    EXPECT_GT(visited, 10u);
}

// libipt's own test streams (230, many with bad or odd PSB+), where ../shared is present.
TEST(IptSyncMirror, LibiptSuiteStreams) {
    fs::path dir = fs::path(RINGSCOPE_SHARED_DIR) / "conformance/ipt/libipt-suite";
    if (!fs::is_directory(dir)) GTEST_SKIP() << dir << " is absent";
    auto [streams, visited] = expect_mirror_in(dir);
    EXPECT_GE(streams, 200u);
    EXPECT_GT(visited, 200u);
}

// The bytes both directions search and decode, per byte of stream, stay under a constant as the
// floods grow 16-fold (before, sync backward was quadratic here: 1 MiB took 10-23 s).
TEST(IptSyncWork, LinearOnFloods) {
    constexpr double kBytesPerByte = 16;
    for (const char* kind : kFloods) {
        double per_byte[2] = {};
        int i = 0;
        for (size_t size : {size_t{64} << 10, size_t{1} << 20}) {
            Bytes bytes = flood(kind, size);
            Buffer buf(bytes);
            uint64_t work = 0;
            walk(buf.config, true, &work);
            walk(buf.config, false, &work);
            per_byte[i++] = static_cast<double>(work) / static_cast<double>(bytes.size());
        }
        EXPECT_LT(per_byte[0], kBytesPerByte) << kind;
        EXPECT_LT(per_byte[1], kBytesPerByte) << kind;
        EXPECT_LT(per_byte[1], per_byte[0] * 1.25 + 1) << kind;
    }
}

// The command's own loops: sync_report counts the same work.
TEST(IptSyncWork, ReportIsLinearOnFloods) {
    for (const char* kind : kFloods) {
        Bytes bytes = flood(kind, size_t{1} << 20);
        Buffer buf(bytes);
        std::FILE* out = std::tmpfile();
        ASSERT_NE(out, nullptr);
        uint64_t work = sync_report(buf.config, {0, 16}, out);
        std::fclose(out);
        EXPECT_LT(static_cast<double>(work), 16.0 * static_cast<double>(bytes.size())) << kind;
        EXPECT_GT(work, bytes.size()) << kind;
    }
}

// `ipt sync /dev/stdin` (a pipe): read once, front to back, the same report as from the file.
std::string sync_output(const std::vector<std::string>& args) {
    char* text = nullptr;
    size_t size = 0;
    std::FILE* out = open_memstream(&text, &size);
    std::FILE* err = std::tmpfile();
    EXPECT_EQ(sync_main(args, out, err), 0);
    std::fclose(out);
    std::fclose(err);
    std::string result(text, size);
    std::free(text);
    return result;
}

// The bytes, written into a pipe by a thread; the path that reads the pipe.
struct PipeFeed {
    int fds[2] = {-1, -1};
    std::thread writer;
    explicit PipeFeed(const Bytes& bytes) {
        EXPECT_EQ(pipe(fds), 0);
        writer = std::thread([this, bytes] {
            size_t done = 0;
            while (done < bytes.size()) {
                ssize_t n = write(fds[1], bytes.data() + done, bytes.size() - done);
                if (n <= 0) break;
                done += static_cast<size_t>(n);
            }
            close(fds[1]);
        });
    }
    std::string path() const { return "/dev/fd/" + std::to_string(fds[0]); }
    ~PipeFeed() {
        writer.join();
        close(fds[0]);
    }
};

TEST(IptSyncInput, PipeReadOnce) {
    const Bytes bytes = flood("badpsbflood", 200000);
    const fs::path file =
        fs::temp_directory_path() / ("ringscope-ipt-sync-" + std::to_string(getpid()) + ".pt");
    std::FILE* f = std::fopen(file.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
    const std::string want = sync_output({file.string()});
    fs::remove(file);
    EXPECT_GT(want.size(), 100000u);
    PipeFeed feed(bytes);
    EXPECT_EQ(sync_output({feed.path()}), want);
}

TEST(IptSyncInput, PipeRange) {
    Bytes bytes(100000);
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 7);
    {
        PipeFeed feed(bytes);
        auto part = TraceBytes::load(feed.path(), 70000, 1000);
        ASSERT_TRUE(part) << part.error().to_string();
        EXPECT_EQ(Bytes(part->begin(), part->end()), Bytes(bytes.begin() + 70000, bytes.begin() + 71000));
    }
    {
        PipeFeed feed(bytes);
        auto past = TraceBytes::load(feed.path(), 99000, 5000);
        ASSERT_FALSE(past);
        EXPECT_NE(past.error().to_string().find("range past the end"), std::string::npos);
    }
}

}  // namespace
