// Walks the same sub-buffers with ringscope's SubBufferCursor, ringscope's SubBuffer (the kbuffer
// API) and libtraceevent's kbuffer, and prints events/s, GB/s and the ratio, in one run.
// Usage: ringbuffer_walk_bench [FILE [SUBBUF_SIZE [MB]]]   (FILE "" = the default input)
// Default input: the committed 4 KB captures of tests/data/ringbuffer, repeated to MB megabytes
// (default 64) so the walk is not just cache hits on one page.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "ringscope/sub_buffer.hpp"

#ifdef RINGSCOPE_HAVE_LIBTRACEEVENT
extern "C" {
#include <kbuffer.h>
}
#endif

namespace {

using Clock = std::chrono::steady_clock;

std::vector<uint8_t> read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct Sum {
    uint64_t events = 0;
    uint64_t check = 0;  // folds ts and size so the walks cannot be optimized away
};

Sum walk_cursor(const std::vector<uint8_t>& buf, const ringscope::SubBufferLayout& layout) {
    Sum s;
    ringscope::SubBufferCursor cur(layout);
    for (size_t off = 0; off + layout.subbuf_size <= buf.size(); off += layout.subbuf_size) {
        if (!cur.reset(std::span<const uint8_t>(buf.data() + off, layout.subbuf_size))) continue;
        for (ringscope::SubBufferRecord r; cur.next(r);) {
            ++s.events;
            s.check += r.ts ^ r.size ^ r.data[0];
        }
    }
    return s;
}

Sum walk_subbuffer(const std::vector<uint8_t>& buf, const ringscope::SubBufferLayout& layout) {
    Sum s;
    ringscope::SubBuffer sb(layout);
    for (size_t off = 0; off + layout.subbuf_size <= buf.size(); off += layout.subbuf_size) {
        if (!sb.load(std::span<const uint8_t>(buf.data() + off, layout.subbuf_size))) continue;
        uint64_t ts = 0;
        for (const uint8_t* ev = sb.read_event(&ts); ev; ev = sb.next_event(&ts)) {
            ++s.events;
            s.check += ts ^ static_cast<uint32_t>(sb.event_size()) ^ ev[0];
        }
    }
    return s;
}

#ifdef RINGSCOPE_HAVE_LIBTRACEEVENT
Sum walk_kbuffer(std::vector<uint8_t>& buf, const ringscope::SubBufferLayout& layout) {
    Sum s;
    kbuffer* kb = kbuffer_alloc(KBUFFER_LSIZE_SAME_AS_HOST, KBUFFER_ENDIAN_SAME_AS_HOST);
    for (size_t off = 0; off + layout.subbuf_size <= buf.size(); off += layout.subbuf_size) {
        if (kbuffer_load_subbuffer(kb, buf.data() + off) < 0) continue;
        unsigned long long ts = 0;
        for (void* ev = kbuffer_read_event(kb, &ts); ev; ev = kbuffer_next_event(kb, &ts)) {
            ++s.events;
            s.check += ts ^ static_cast<uint32_t>(kbuffer_event_size(kb)) ^ *static_cast<uint8_t*>(ev);
        }
    }
    kbuffer_free(kb);
    return s;
}
#endif

template <class F>
double best_seconds(F&& f, Sum& out, int rounds) {
    double best = 1e30;
    for (int i = 0; i < rounds; ++i) {
        const auto t0 = Clock::now();
        out = f();
        best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
    }
    return best;
}

}  // namespace

int main(int argc, char** argv) {
    const size_t subbuf = argc > 2 ? std::strtoul(argv[2], nullptr, 0) : 4096;
    const size_t mb = argc > 3 ? std::strtoul(argv[3], nullptr, 0) : 64;
    std::vector<uint8_t> pages;
    if (argc > 1 && argv[1][0]) {
        pages = read_file(argv[1]);
    } else {
        const std::string dir = std::string(RINGSCOPE_TEST_DATA_DIR) + "/ringbuffer/";
        for (const char* n : {"busy.cpu0.raw", "busy.cpu1.raw", "missed.raw", "idle_gap.raw"}) {
            auto b = read_file(dir + n);
            pages.insert(pages.end(), b.begin(), b.end());
        }
    }
    if (pages.size() < subbuf || subbuf < 16) {
        std::fprintf(stderr, "ringbuffer_walk_bench: no sub-buffers to walk\n");
        return 1;
    }
    pages.resize(pages.size() / subbuf * subbuf);
    std::vector<uint8_t> buf;
    buf.reserve(mb << 20);
    while (buf.size() + pages.size() <= (mb << 20)) buf.insert(buf.end(), pages.begin(), pages.end());
    if (buf.empty()) buf = pages;

    auto layout = ringscope::SubBufferLayout::make(
        ringscope::SubBufferEndian::host, ringscope::SubBufferLongSize::host, static_cast<uint32_t>(subbuf));
    if (!layout) {
        std::fprintf(stderr, "ringbuffer_walk_bench: %s\n", layout.error().to_string().c_str());
        return 1;
    }
    const int rounds = 7;
    const double gb = static_cast<double>(buf.size()) / 1e9;
    std::printf("%zu sub-buffers of %zu bytes (%.1f MB), best of %d rounds\n", buf.size() / subbuf, subbuf,
                static_cast<double>(buf.size()) / 1e6, rounds);

    Sum cur, sbs;
    const double t_cur = best_seconds([&] { return walk_cursor(buf, *layout); }, cur, rounds);
    const double t_sb = best_seconds([&] { return walk_subbuffer(buf, *layout); }, sbs, rounds);
    auto line = [&](const char* name, const Sum& s, double t) {
        std::printf("%-28s %10llu events %8.3f ms %8.1f M events/s %6.2f GB/s\n", name,
                    static_cast<unsigned long long>(s.events), t * 1e3,
                    static_cast<double>(s.events) / t / 1e6, gb / t);
    };
    line("ringscope SubBufferCursor", cur, t_cur);
    line("ringscope SubBuffer", sbs, t_sb);
    int rc = cur.check == sbs.check && cur.events == sbs.events ? 0 : 2;
#ifdef RINGSCOPE_HAVE_LIBTRACEEVENT
    Sum kb;
    const double t_kb = best_seconds([&] { return walk_kbuffer(buf, *layout); }, kb, rounds);
    line("libtraceevent kbuffer", kb, t_kb);
    if (kb.check != cur.check || kb.events != cur.events) rc = 2;
    std::printf("ratio cursor/kbuffer: %.2fx   SubBuffer/kbuffer: %.2fx\n", t_kb / t_cur, t_kb / t_sb);
#endif
    if (rc) std::fprintf(stderr, "ringbuffer_walk_bench: the walks disagree\n");
    return rc;
}
