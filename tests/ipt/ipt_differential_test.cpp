// Differential tests against Debian's libipt 2.0.5: streams from a seeded generator built on
// libipt's encoder are decoded by both; packet lists, sync sequences (forward, backward, set at
// every PSB and at other offsets) and query transcripts must be identical, apart from the
// documented libipt 2.0.5 defects (sync backward status bits; search loops that never end). Sync
// backward is held to libipt's sync forward, reversed (issue #28: libipt's backward skips PSBs
// forward visits, answers a PSB+ that fails after PSBEND twice, and loops).
// libipt runs in a forked child with a time limit so that its endless loops cannot hang the test.
#include <intel-pt.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ipt/errors.hpp"
#include "ipt/trace_file.hpp"
#include "ipt_stream_generator.hpp"
#include "ipt_transcript_libipt.hpp"

namespace ri = ringscope::ipt;
using ri::testing::GeneratorOptions;

using namespace ipt_transcript;

namespace {

// A transcript (transcript() by default) of libipt, computed in a child process; false when it
// hung.
template <class Walk>
bool oracle_transcript(const ri::TraceBytes& bytes, const std::vector<uint8_t>& raw, uint64_t seed,
                       std::string& out, Walk walk) {
    int fds[2];
    if (pipe(fds) != 0) return false;
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        Theirs t(bytes.begin(), bytes.end());
        std::string s = walk(t, raw, seed);
        size_t done = 0;
        while (done < s.size()) {
            ssize_t n = write(fds[1], s.data() + done, s.size() - done);
            if (n <= 0) break;
            done += static_cast<size_t>(n);
        }
        _exit(0);
    }
    close(fds[1]);
    out.clear();
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    bool hung = false;
    char buf[65536];
    for (;;) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline -
                                                                          std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            hung = true;
            break;
        }
        pollfd p{fds[0], POLLIN, 0};
        int r = poll(&p, 1, static_cast<int>(left.count()));
        if (r <= 0) continue;
        ssize_t n = read(fds[0], buf, sizeof buf);
        if (n <= 0) break;
        out.append(buf, static_cast<size_t>(n));
    }
    close(fds[0]);
    if (hung) kill(pid, SIGKILL);
    int wstatus = 0;
    waitpid(pid, &wstatus, 0);
    return !hung && WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0;
}

std::string first_difference(const std::string& a, const std::string& b) {
    size_t line = 0, i = 0;
    while (i < a.size() && i < b.size() && a[i] == b[i]) {
        if (a[i] == '\n') ++line;
        ++i;
    }
    auto context = [&](const std::string& s) {
        size_t start = s.rfind('\n', i == 0 ? 0 : i - 1);
        start = start == std::string::npos ? 0 : start + 1;
        size_t end = s.find('\n', i);
        return s.substr(start, end == std::string::npos ? std::string::npos : end - start);
    };
    return "line " + std::to_string(line + 1) + "\n  ours:   " + context(a) + "\n  libipt: " + context(b);
}

// The transcript with its backward section made from its forward section: the same PSBs in
// reverse order, with the same answers (status bits left out, as the transcript does for backward).
std::string mirror_backward(const std::string& t) {
    const size_t fwd = t.find("== forward\n"), back = t.find("== backward\n");
    if (fwd == std::string::npos || back == std::string::npos) return t;
    const size_t after = t.find("== ", back + 1);
    std::vector<std::string> visits;
    std::string last;
    for (size_t i = fwd + 11; i < back;) {
        size_t nl = t.find('\n', i);
        std::string line = t.substr(i, nl - i);
        i = nl + 1;
        line[0] = 'B';
        if (line.rfind("B ok st", 0) == 0) line = "B ok st0" + line.substr(line.find(' ', 5));
        if (line.find("err-7 ") != std::string::npos)
            last = line;
        else
            visits.push_back(line);
    }
    std::string out = t.substr(0, back) + "== backward\n";
    for (auto it = visits.rbegin(); it != visits.rend(); ++it) out += *it + "\n";
    out += last + "\n";
    return out + (after == std::string::npos ? std::string() : t.substr(after));
}

size_t compared = 0, lines = 0;

struct FullTranscript {
    template <class Dec>
    std::string operator()(Dec& dec, const std::vector<uint8_t>& raw, uint64_t seed) const {
        return transcript(dec, raw, seed);
    }
};

struct MixedTranscript {
    template <class Dec>
    std::string operator()(Dec& dec, const std::vector<uint8_t>& raw, uint64_t seed) const {
        return mixed_transcript(dec, raw, seed);
    }
};

template <class Walk = FullTranscript>
void run_seeds(uint64_t first, uint64_t count, bool random, const GeneratorOptions& fixed, int& hung,
               Walk walk = {}) {
    for (uint64_t seed = first; seed < first + count; ++seed) {
        GeneratorOptions o = random ? ri::testing::random_options(seed) : fixed;
        std::vector<uint8_t> raw = ri::testing::generate_stream(seed, o);
        ri::TraceBytes bytes = ri::TraceBytes::copy(raw.data(), raw.size());
        std::string theirs;
        if (!oracle_transcript(bytes, raw, seed, theirs, walk)) {
            ++hung;  // a libipt 2.0.5 endless loop (documented); ours must still finish
            Ours o2(bytes.begin(), bytes.end());
            (void)walk(o2, raw, seed);
            continue;
        }
        theirs = mirror_backward(theirs);
        Ours ours(bytes.begin(), bytes.end());
        std::string mine = walk(ours, raw, seed);
        ++compared;
        lines += static_cast<size_t>(std::count(mine.begin(), mine.end(), '\n'));
        if (const char* dump = std::getenv("IPT_DUMP_SEED"); dump && std::strtoull(dump, nullptr, 0) == seed)
            std::printf("%s", mine.c_str());
        if (mine != theirs) {
            ADD_FAILURE() << "seed " << seed << " (" << ri::testing::describe(o) << ", " << raw.size()
                          << " bytes): " << first_difference(mine, theirs);
            return;
        }
    }
}

TEST(IptDifferential, RandomStreams) {
    int hung = 0;
    run_seeds(1, 2000, true, {}, hung);
    std::printf("libipt hung on %d of 2000 streams; %zu transcripts (%zu lines) identical so far\n", hung,
                compared, lines);
}

TEST(IptDifferential, CleanStreams) {
    int hung = 0;
    GeneratorOptions o;
    o.segments = 5;
    o.body_packets = 60;
    run_seeds(10000, 100, false, o, hung);
    EXPECT_EQ(hung, 0);
}

TEST(IptDifferential, ClosePsbs) {
    int hung = 0;
    GeneratorOptions o;
    o.segments = 8;
    o.body_packets = 4;
    o.close_psbs = true;
    run_seeds(20000, 150, false, o, hung);
    std::printf("libipt hung on %d of 150 close-PSB streams\n", hung);
}

// Queries in the wrong order as well as the right one, on streams with runs of TNT packets (which
// ringscope caches at once): every answer, error, offset and time as libipt's.
TEST(IptDifferential, MixedQueries) {
    int hung = 0;
    size_t before = compared;
    run_seeds(30000, 300, true, {}, hung, MixedTranscript{});
    GeneratorOptions o;
    o.realistic = true;
    o.segments = 6;
    o.body_packets = 200;
    run_seeds(40000, 100, false, o, hung, MixedTranscript{});
    std::printf("libipt hung on %d of 400 streams; %zu mixed transcripts identical\n", hung,
                compared - before);
    EXPECT_GT(compared - before, 300u);
}

// TNTs with PAD, MTC and CYC packets between them, which the query decoder caches as one run
// (query_tnt_run.cpp), on clean streams and on streams with bytes overwritten (timing packets that
// fail): every answer, error, offset and time, with the lost counts, as libipt's.
TEST(IptDifferential, TntRunsAcrossTimingPackets) {
    int hung = 0;
    size_t before = compared;
    GeneratorOptions o;
    o.realistic = true;
    o.timed_tnt = true;
    o.segments = 4;
    o.body_packets = 150;
    run_seeds(50000, 100, false, o, hung, MixedTranscript{});
    o.corruptions = 4;
    run_seeds(51000, 100, false, o, hung, MixedTranscript{});
    std::printf("libipt hung on %d of 200 streams; %zu mixed transcripts identical\n", hung,
                compared - before);
    EXPECT_GT(compared - before, 150u);
}

// The time without the lost counts is answered from the QueryDecoder's own copy, the transcripts
// ask for it with them (from QueryCore): both must agree after every query, successful or not, on
// random and realistic streams.
TEST(IptDifferential, TimeWithoutLostCountsAgrees) {
    size_t checked = 0;
    for (uint64_t seed = 1; seed <= 60; ++seed) {
        GeneratorOptions o;
        o.realistic = seed % 2 == 0;
        o.segments = 20;
        o.body_packets = 200;
        std::vector<uint8_t> raw = ri::testing::generate_stream(seed, o);
        ri::TraceBytes bytes = ri::TraceBytes::copy(raw.data(), raw.size());
        Ours ours(bytes.begin(), bytes.end());
        ri::QueryDecoder q(ours.config);
        ri::QueryEvent ev;
        int status = q.sync_forward(nullptr);
        for (int step = 0; step < 200000 && status != -ri::pte_eos; ++step) {
            uint64_t fast = 1, full = 2;
            uint32_t lost_mtc = 0, lost_cyc = 0;
            int fast_status = q.time(fast, nullptr, nullptr);
            ASSERT_EQ(fast_status, q.time(full, &lost_mtc, &lost_cyc)) << "seed " << seed << " step " << step;
            ASSERT_EQ(fast, full) << "seed " << seed << " step " << step;
            ++checked;
            if (status < 0) {
                status = q.sync_forward(nullptr);
            } else if (status & ri::pts_event_pending) {
                status = q.event(ev);
            } else {
                int taken = 0;
                status = q.cond_branch(taken);
                uint64_t ip = 0;
                if (status == -ri::pte_bad_query) status = q.indirect_branch(ip);
                if (status == -ri::pte_bad_query) status = q.event(ev);
            }
        }
    }
    EXPECT_GT(checked, 100000u);
}

TEST(IptDifferential, SyncBackwardReturnsStatus) {
    // libipt 2.0.5 returns 0; the man page (and ringscope) return the status bits.
    GeneratorOptions o;
    o.segments = 3;
    std::vector<uint8_t> raw = ri::testing::generate_stream(7, o);
    ri::TraceBytes bytes = ri::TraceBytes::copy(raw.data(), raw.size());
    Ours ours(bytes.begin(), bytes.end());
    ri::QueryDecoder back(ours.config), set(ours.config);
    uint64_t ip = 0, off = 0;
    int s = back.sync_backward(&ip);
    ASSERT_GE(s, 0);
    ASSERT_EQ(back.get_sync_offset(off), 0);
    EXPECT_EQ(s, set.sync_set(&ip, off));
}

}  // namespace
