// ipt_bench [--size-mb N] [-j THREADS] [--seed S] [--only packets|next|sync|query|floor|events]
//           [--write FILE.pt | --read FILE.pt [--map]]
//
// Builds a large realistic stream (TNT and compressed TIPs, MTC/CYC, a PSB+ every few KB) with
// libipt's encoder, then times, for ringscope and libipt 2.0.5 in the same run:
//   packets  - decode every packet (ours: PacketDecoder::for_each; libipt: pt_pkt_next loop)
//   next()   - ours one PacketDecoder::next() call per packet, like pt_pkt_next
//   sync     - PSB search over the whole stream (pt_pkt_sync_forward loop)
//   query    - a flow decoder's query loop (sync, cond/indirect branches, events, time)
// With --only floor, the query loop's floors instead: the same loop over answers recorded in
// advance, no decoding (floor-a every answer replayed, floor-b cond_branch's from a cache of bits).
// And, with -j, ringscope's packet decoding split at PSBs over threads, merged in order (what
// `ipt dump -j` and `ipt summary -j` use), and the events of `ringscope report -j FILE.pt`.
// With --map the file read is mapped (TraceBytes::map) and ours' packet loop gives back the
// pages behind it (PagesBehind), as the ipt commands do; libipt reads the same mapping.
// Ours and libipt's runs alternate; each figure is the median of five runs, MB/s from the CPU time
// of the decoding thread (the machine is shared), with the ratio of wall times beside it.
#include <intel-pt.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include "bench_clock.hpp"
#include "ipt/errors.hpp"
#include "ipt/event_builder.hpp"
#include "ipt/event_sequence.hpp"
#include "ipt/packet_decoder.hpp"
#include "ipt/pages_behind.hpp"
#include "ipt/psb_parts.hpp"
#include "ipt/psb_search.hpp"
#include "ipt/query_decoder.hpp"
#include "ipt/trace_file.hpp"
#include "ipt_stream_generator.hpp"
#include "no_symbols.hpp"

namespace ri = ringscope::ipt;

namespace {

struct Result {
    double seconds = 0;  // CPU time of the decoding thread
    double wall = 0;
    uint64_t items = 0;  // packets, PSBs or queries
    uint64_t check = 0;  // a checksum both decoders must agree on
};

using ringscope::ipt::bench::cpu_seconds;
using ringscope::ipt::bench::run_once;

Result median(std::vector<Result> runs) {
    std::sort(runs.begin(), runs.end(),
              [](const Result& a, const Result& b) { return a.seconds < b.seconds; });
    Result m = runs[runs.size() / 2];
    std::vector<double> walls;
    for (const Result& r : runs) walls.push_back(r.wall);
    std::sort(walls.begin(), walls.end());
    m.wall = walls[walls.size() / 2];
    return m;
}

// Ours and theirs interleaved (ours, theirs, ours, ...) so that both see the same load; medians
// of kRuns runs, CPU time and wall time apart.
constexpr int kRuns = 5;

template <class F, class G>
std::pair<Result, Result> timed(F&& ours, G&& theirs) {
    std::vector<Result> a, b;
    for (int i = 0; i < kRuns; ++i) {
        a.push_back(run_once(ours));
        b.push_back(run_once(theirs));
    }
    return {median(a), median(b)};
}

ri::Config our_config(const ri::TraceBytes& b) {
    ri::Config c;
    c.begin = b.begin();
    c.end = b.end();
    c.packets = ri::PacketSet::libipt_2_0_5;
    c.mtc_freq = 3;
    c.cpuid_0x15_eax = 1;
    c.cpuid_0x15_ebx = 4;
    return c;
}

pt_config their_config(const ri::TraceBytes& b) {
    pt_config c;
    std::memset(&c, 0, sizeof c);
    c.size = sizeof c;
    c.begin = const_cast<uint8_t*>(b.begin());
    c.end = const_cast<uint8_t*>(b.end());
    c.mtc_freq = 3;
    c.cpuid_0x15_eax = 1;
    c.cpuid_0x15_ebx = 4;
    return c;
}

// The loops below count into locals, not into the Result they return: a sum kept in memory is a
// store-to-load chain through every packet (the returned Result's address escapes), which on a
// fast decoder costs as much as the decoding.
Result counted(uint64_t items, uint64_t check) {
    Result r;
    r.items = items;
    r.check = check;
    return r;
}

// The batch form (PacketDecoder::for_each). With a mapped file, the pages behind given back.
Result our_packets(const ri::Config& config, const ri::TraceBytes* mapped = nullptr) {
    uint64_t items = 0, check = 0;
    ri::PacketDecoder d(config);
    std::optional<ri::PagesBehind> pages;
    if (mapped && mapped->mapped()) pages.emplace(*mapped);
    int err = d.sync_forward();
    while (err >= 0) {
        int size = d.for_each([&](uint64_t offset, const ri::Packet& p) {
            if (pages) pages->at(offset);
            ++items;
            check += static_cast<uint64_t>(p.type);
        });
        if (size == -ri::pte_eos) break;
        err = d.sync_forward();
    }
    return counted(items, check);
}

// One next() call per packet, like pt_pkt_next.
Result our_packets_next(const ri::Config& config) {
    uint64_t items = 0, check = 0;
    ri::PacketDecoder d(config);
    int err = d.sync_forward();
    while (err >= 0) {
        ri::Packet p;
        int size;
        while ((size = d.next(p)) > 0) {
            ++items;
            check += static_cast<uint64_t>(p.type);
        }
        if (size == -ri::pte_eos) break;
        err = d.sync_forward();
    }
    return counted(items, check);
}

Result their_packets(const pt_config& config) {
    uint64_t items = 0, check = 0;
    pt_packet_decoder* d = pt_pkt_alloc_decoder(&config);
    int err = pt_pkt_sync_forward(d);
    while (err >= 0) {
        pt_packet p;
        int size;
        while ((size = pt_pkt_next(d, &p, sizeof p)) > 0) {
            ++items;
            check += static_cast<uint64_t>(p.type);
        }
        if (size == -pte_eos) break;
        err = pt_pkt_sync_forward(d);
    }
    pt_pkt_free_decoder(d);
    return counted(items, check);
}

Result our_sync(const ri::Config& config) {
    Result r;
    ri::PacketDecoder d(config);
    uint64_t off = 0;
    while (d.sync_forward() == 0) {
        d.get_sync_offset(off);
        ++r.items;
        r.check += off;
    }
    return r;
}

Result their_sync(const pt_config& config) {
    Result r;
    pt_packet_decoder* d = pt_pkt_alloc_decoder(&config);
    uint64_t off = 0;
    while (pt_pkt_sync_forward(d) == 0) {
        pt_pkt_get_sync_offset(d, &off);
        ++r.items;
        r.check += off;
    }
    pt_pkt_free_decoder(d);
    return r;
}

// The query loop of a flow decoder; items counts answered queries, check sums their answers.
template <class Sync, class Cond, class Ind, class Ev, class Time>
Result query_loop(Sync sync, Cond cond, Ind ind, Ev ev, Time time) {
    uint64_t items = 0, check = 0;
    int status = sync();
    for (;;) {
        if (status < 0) {
            if (status == -pte_eos) break;
            status = sync();
            continue;
        }
        if (status & pts_event_pending) {
            status = ev();
        } else {
            int taken = 0;
            status = cond(&taken);
            if (status >= 0) {
                check += static_cast<uint64_t>(taken);
            } else if (status == -pte_bad_query) {
                uint64_t ip = 0;
                status = ind(&ip);
                if (status >= 0) check += ip;
                if (status == -pte_bad_query) status = ev();
            }
        }
        if (status >= 0) {
            ++items;
            check += time();
        }
    }
    return counted(items, check);
}

Result our_query(const ri::Config& config) {
    ri::QueryDecoder q(config);
    ri::QueryEvent e;
    return query_loop([&] { return q.sync_forward(nullptr); }, [&](int* t) { return q.cond_branch(*t); },
                      [&](uint64_t* ip) { return q.indirect_branch(*ip); }, [&] { return q.event(e); },
                      [&] {
                          uint64_t tsc = 0;
                          q.time(tsc, nullptr, nullptr);
                          return tsc;
                      });
}

Result their_query(const pt_config& config) {
    pt_query_decoder* q = pt_qry_alloc_decoder(&config);
    pt_event e;
    Result r = query_loop([&] { return pt_qry_sync_forward(q, nullptr); },
                          [&](int* t) { return pt_qry_cond_branch(q, t); },
                          [&](uint64_t* ip) { return pt_qry_indirect_branch(q, ip); },
                          [&] { return pt_qry_event(q, &e, sizeof e); },
                          [&] {
                              uint64_t tsc = 0;
                              pt_qry_time(q, &tsc, nullptr, nullptr);
                              return tsc;
                          });
    pt_qry_free_decoder(q);
    return r;
}

// Floors of the query loop: the same loop over answers our decoder recorded in advance, so that
// what is left is the caller's work (its branches on the statuses, its sums) and the reading of
// the answers, and none of the decoding. floor-a replays every call's answer (16 bytes a call, the
// times apart, one entry per change); floor-b answers successive cond_branch calls from a cache of
// bits, inline as QueryDecoder does (the compiler then folds the caller's status tests there), and
// replays the rest. floor-b is about what a decoder that answers branches as QueryDecoder does would
// cost if its decoding were free (less the reading of the records, 16 bytes each): to reach N times
// libipt such a decoder has about libipt's time / N less floor-b's time for all of its decoding.
struct Answer {
    uint64_t value;  // taken, or the IP
    int32_t status;
    uint32_t time;  // index into RecordedQueries::times
};

struct RecordedQueries {
    std::vector<Answer> answers;
    std::vector<uint64_t> times;
};

RecordedQueries recorded_queries(const ri::Config& config) {
    RecordedQueries r;
    ri::QueryDecoder q(config);
    ri::QueryEvent e;
    auto put = [&](int status, uint64_t value) {
        r.answers.push_back({value, status, 0});
        return status;
    };
    query_loop([&] { return put(q.sync_forward(nullptr), 0); },
               [&](int* t) {
                   int status = q.cond_branch(*t);
                   return put(status, status >= 0 ? static_cast<uint64_t>(*t) : 0);
               },
               [&](uint64_t* ip) {
                   int status = q.indirect_branch(*ip);
                   return put(status, status >= 0 ? *ip : 0);
               },
               [&] { return put(q.event(e), 0); },
               [&] {
                   uint64_t tsc = 0;
                   q.time(tsc, nullptr, nullptr);
                   if (r.times.empty() || r.times.back() != tsc) r.times.push_back(tsc);
                   r.answers.back().time = static_cast<uint32_t>(r.times.size() - 1);
                   return tsc;
               });
    return r;
}

Result replayed_queries(const RecordedQueries& r) {
    const Answer* next = r.answers.data();
    const uint64_t* times = r.times.data();
    return query_loop([&] { return (next++)->status; },
                      [&](int* t) {
                          const Answer& a = *next++;
                          *t = static_cast<int>(a.value);
                          return a.status;
                      },
                      [&](uint64_t* ip) {
                          const Answer& a = *next++;
                          *ip = a.value;
                          return a.status;
                      },
                      [&] { return (next++)->status; }, [&] { return times[next[-1].time]; });
}

// floor-b's records: a group of up to 64 successful cond_branch answers with the same time, all
// with status 0 but the last, or one call's answer.
struct Group {
    uint64_t value;  // the bits, oldest highest, or the IP
    int32_t status;  // of the group's last answer, or of the call
    uint32_t time;   // index into RecordedGroups::times
    uint8_t bits;    // 0: one call's answer
};

struct RecordedGroups {
    std::vector<Group> groups;
    std::vector<uint64_t> times;
};

RecordedGroups grouped_answers(const RecordedQueries& r) {
    RecordedGroups g;
    g.times = r.times;
    const Answer* next = r.answers.data();
    constexpr size_t kNone = ~size_t{0};
    size_t open = kNone;  // the group that takes the next successful cond_branch answer
    auto single = [&](const Answer& a) {
        open = kNone;
        g.groups.push_back({a.value, a.status, a.time, 0});
        return a.status;
    };
    query_loop([&] { return single(*next++); },
               [&](int* t) {
                   const Answer& a = *next++;
                   *t = static_cast<int>(a.value);
                   if (a.status < 0) return single(a);
                   if (open != kNone && (g.groups[open].bits == 64 || g.groups[open].time != a.time))
                       open = kNone;
                   if (open == kNone) {
                       open = g.groups.size();
                       g.groups.push_back({0, 0, a.time, 0});
                   }
                   Group& group = g.groups[open];
                   group.value = group.value << 1 | (a.value & 1);
                   group.bits++;
                   group.status = a.status;
                   if (a.status != 0) open = kNone;
                   return a.status;
               },
               [&](uint64_t* ip) {
                   *ip = next->value;
                   return single(*next++);
               },
               [&] { return single(*next++); }, [&] { return r.times[next[-1].time]; });
    return g;
}

// floor-b's answering; with OutOfLine, its refills and its other calls are out of line, as a
// decoder's slow paths are (floor-c): the replay's state is then in memory, as a decoder's is.
template <bool OutOfLine>
struct GroupReplay {
    const Group* next;
    const uint64_t* times;
    uint64_t bits = 0, index = 0, time = 0;
    int last_status = 0;

    int take() noexcept {
        if constexpr (OutOfLine)
            return take_out_of_line();
        else
            return take_inline();
    }
    int cond(int& taken) noexcept {
        if (index > 1) [[likely]] {
            taken = (bits & index) != 0;
            index >>= 1;
            return 0;
        }
        if (index) {
            taken = static_cast<int>(bits & 1);
            index = 0;
            return last_status;
        }
        if constexpr (OutOfLine)
            return refill_out_of_line(taken);
        else
            return refill(taken);
    }
    int ind(uint64_t& ip) noexcept {
        if constexpr (OutOfLine)
            return ind_out_of_line(ip);
        else
            return ind_inline(ip);
    }

  private:
    int take_inline() noexcept {
        const Group& g = *next++;
        time = times[g.time];
        return g.status;
    }
    int refill(int& taken) noexcept {
        const Group& g = *next++;
        time = times[g.time];
        if (!g.bits) return g.status;
        bits = g.value;
        index = uint64_t{1} << (g.bits - 1);
        last_status = g.status;
        return cond(taken);
    }
    int ind_inline(uint64_t& ip) noexcept {
        const Group& g = *next++;
        time = times[g.time];
        ip = g.value;
        return g.status;
    }
    [[gnu::noinline]] int take_out_of_line() noexcept { return take_inline(); }
    [[gnu::noinline]] int refill_out_of_line(int& taken) noexcept { return refill(taken); }
    [[gnu::noinline]] int ind_out_of_line(uint64_t& ip) noexcept { return ind_inline(ip); }
};

template <bool OutOfLine>
Result replayed_groups(const RecordedGroups& g) {
    GroupReplay<OutOfLine> r{g.groups.data(), g.times.data()};
    return query_loop([&] { return r.take(); }, [&](int* t) { return r.cond(*t); },
                      [&](uint64_t* ip) { return r.ind(*ip); }, [&] { return r.take(); },
                      [&] { return r.time; });
}

// Packets decoded in parallel the way `ipt summary -j` and `ipt dump -j` do it: the stream is cut at
// PSBs into parts of a few MiB, decoded on threads and taken in stream order (decode_psb_parts).
Result our_packets_parallel(const ri::Config& config, unsigned threads) {
    Result r;
    const auto size = static_cast<uint64_t>(config.end - config.begin);
    ri::decode_psb_parts<Result>(
        config, threads, 4 << 20,
        [&](Result& part, ri::PacketDecoder& d, uint64_t stop) -> uint64_t {
            // Counted into locals, as in our_packets: the part's fields are memory.
            uint64_t items = 0, check = 0;
            auto done = [&](uint64_t at) {
                part.items += items;
                part.check += check;
                return at;
            };
            for (;;) {
                int err = d.for_each(
                    [&](uint64_t, const ri::Packet& p) {
                        ++items;
                        check += static_cast<uint64_t>(p.type);
                    },
                    config.begin + stop);
                uint64_t at = size;
                d.get_offset(at);
                if (err == 0) return done(at);
                if (err == -ri::pte_eos || d.sync_forward() < 0) return done(size);
                uint64_t sync = size;
                d.get_sync_offset(sync);
                if (sync >= stop) return done(sync);
            }
        },
        [&](Result& part) {
            r.items += part.items;
            r.check += part.check;
        });
    return r;
}

// The events of the "ipt" input format (what `ringscope report FILE.pt` prints), serially or in
// parts on threads (what `report -j` uses): the checksum covers every event's type, time and payload.
Result our_events(const ri::Config& config, unsigned threads) {
    ri::testing::NoSymbols resolvers;
    ri::EventBuilder builder(config, resolvers, "bench.pt");
    ri::EventSequence sequence(config, builder, threads, 256 << 10);
    Result r;
    uint64_t items = 0, check = 0;
    ri::EventView e;
    while (sequence.next(e)) {
        ++items;
        check += e.ts + e.type + e.payload.size() + e.payload.back();
    }
    r.items = items;
    r.check = check;
    return r;
}

double process_cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

void report(const char* what, const char* unit, double mb, const Result& ours, const Result& theirs) {
    double our_mbs = mb / ours.seconds, their_mbs = mb / theirs.seconds;
    std::printf(
        "%-8s ringscope %8.1f MB/s %8.2f M%s/s | libipt %7.1f MB/s %7.2f M%s/s | x%.1f cpu, x%.1f wall%s\n",
        what, our_mbs, static_cast<double>(ours.items) / ours.seconds / 1e6, unit, their_mbs,
        static_cast<double>(theirs.items) / theirs.seconds / 1e6, unit, our_mbs / their_mbs,
        theirs.wall / ours.wall,
        (ours.items == theirs.items && ours.check == theirs.check) ? "" : "  (RESULTS DIFFER)");
    std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
    size_t size_mb = 256;
    unsigned threads = 0;
    uint64_t seed = 1;
    std::string only;       // one measurement (for a profiler), else all
    std::string write_to;   // the stream, for timing `ringscope ipt dump|summary -j` on it
    std::string read_from;  // a stream to time instead of the generated one
    bool map = false;       // ... mapped, not read
    auto usage = [&] {
        std::fprintf(stderr,
                     "usage: %s [--size-mb N] [-j THREADS] [--seed S] [--only "
                     "packets|next|sync|query|floor|events] [--write "
                     "FILE.pt | --read FILE.pt [--map]]\n",
                     argv[0]);
        return 2;
    };
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--size-mb" && i + 1 < argc) {
            size_mb = std::strtoul(argv[++i], nullptr, 0);
        } else if (a == "-j" && i + 1 < argc) {
            threads = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 0));
        } else if (a == "--seed" && i + 1 < argc) {
            seed = std::strtoull(argv[++i], nullptr, 0);
        } else if (a == "--write" && i + 1 < argc) {
            write_to = argv[++i];
        } else if (a == "--read" && i + 1 < argc) {
            read_from = argv[++i];
        } else if (a == "--map") {
            map = true;
        } else if (a == "--only" && i + 1 < argc) {
            only = argv[++i];
            if (only != "packets" && only != "next" && only != "sync" && only != "query" &&
                only != "events" && only != "floor")
                return usage();
        } else {
            return usage();
        }
    }
    if ((!read_from.empty() && !write_to.empty()) || (map && read_from.empty())) return usage();
    ri::TraceBytes bytes;
    if (!read_from.empty()) {
        auto loaded = map ? ri::TraceBytes::map(read_from) : ri::TraceBytes::load(read_from);
        if (!loaded) {
            std::fprintf(stderr, "ipt_bench: %s: %s\n", read_from.c_str(), loaded.error().message().c_str());
            return 1;
        }
        bytes = std::move(*loaded);
        std::printf("stream: %s, %.1f MiB\n", read_from.c_str(),
                    static_cast<double>(bytes.size()) / (1 << 20));
    } else {
        // A ~4 MiB base stream repeated: every copy starts with a PSB+, so the copies stay decodable.
        ri::testing::GeneratorOptions o;
        o.realistic = true;
        o.segments = 1024;
        o.body_packets = 1400;
        std::vector<uint8_t> base = ri::testing::generate_stream(seed, o);
        std::vector<uint8_t> all;
        all.reserve(size_mb << 20);
        while (all.size() + base.size() <= (size_mb << 20)) all.insert(all.end(), base.begin(), base.end());
        if (all.empty()) all = base;
        if (!write_to.empty()) {
            std::FILE* f = std::fopen(write_to.c_str(), "wb");
            bool ok = f && std::fwrite(all.data(), 1, all.size(), f) == all.size();
            if (f && std::fclose(f) != 0) ok = false;
            if (!ok) {
                std::fprintf(stderr, "ipt_bench: cannot write %s\n", write_to.c_str());
                return 1;
            }
        }
        bytes = ri::TraceBytes::copy(all.data(), all.size());
        std::printf("stream: %.1f MiB (%zu-byte base x %zu), seed %" PRIu64 "\n",
                    static_cast<double>(bytes.size()) / (1 << 20), base.size(),
                    bytes.size() / std::max<size_t>(base.size(), 1), seed);
    }
    double mb = static_cast<double>(bytes.size()) / (1 << 20);

    ri::Config ours = our_config(bytes);
    pt_config theirs = their_config(bytes);
    auto wanted = [&](const char* name) { return only.empty() || only == name; };
    if (wanted("packets")) {
        auto [ours_p, theirs_p] =
            timed([&] { return our_packets(ours, &bytes); }, [&] { return their_packets(theirs); });
        report("packets", "pkt", mb, ours_p, theirs_p);
    }
    if (wanted("next")) {
        auto [p3, p4] = timed([&] { return our_packets_next(ours); }, [&] { return their_packets(theirs); });
        report("next()", "pkt", mb, p3, p4);
    }
    if (wanted("sync")) {
        auto [s1, s2] = timed([&] { return our_sync(ours); }, [&] { return their_sync(theirs); });
        report("sync", "psb", mb, s1, s2);
    }
    if (wanted("query")) {
        auto [q1, q2] = timed([&] { return our_query(ours); }, [&] { return their_query(theirs); });
        report("query", "q", mb, q1, q2);
    }
    if (only == "floor") {
        RecordedQueries recorded = recorded_queries(ours);
        auto [f1, f2] =
            timed([&] { return replayed_queries(recorded); }, [&] { return their_query(theirs); });
        report("floor-a", "q", mb, f1, f2);
        RecordedGroups groups = grouped_answers(recorded);
        recorded = {};
        auto [g1, g2] =
            timed([&] { return replayed_groups<false>(groups); }, [&] { return their_query(theirs); });
        report("floor-b", "q", mb, g1, g2);
        auto [c1, c2] =
            timed([&] { return replayed_groups<true>(groups); }, [&] { return their_query(theirs); });
        report("floor-c", "q", mb, c1, c2);
    }
    if (only == "events") {
        Result r = run_once([&] { return our_events(ours, threads); });
        std::printf("events -j%u: %.2f s wall, %" PRIu64 " events\n", threads, r.wall, r.items);
    }
    if (threads > 1 && only.empty()) {
        // Wall time is the point here; the process's CPU time (all threads) beside it. Median of
        // kRuns runs, interleaved with the serial decode; with other work on the cores the wall
        // figure shows how much of a second core was free.
        auto parallel = [&](const char* what, const char* unit, auto&& many, auto&& one_thread) {
            std::vector<Result> par, ser;
            for (int i = 0; i < kRuns; ++i) {
                double c0 = process_cpu_seconds();
                Result r = run_once(many);
                r.seconds = process_cpu_seconds() - c0;
                par.push_back(r);
                ser.push_back(run_once(one_thread));
            }
            Result j = median(par), one = median(ser);
            std::printf(
                "%s -j%u ringscope %8.1f MB/s %8.2f M%s/s wall (%.2f s wall, %.2f s cpu; -j1 %.2f s "
                "wall, %.2f s cpu: x%.2f) (%s -j1)\n",
                what, threads, mb / j.wall, static_cast<double>(j.items) / j.wall / 1e6, unit, j.wall,
                j.seconds, one.wall, one.seconds, one.wall / j.wall,
                (j.items == one.items && j.check == one.check) ? "same results as" : "DIFFERENT from");
            std::fflush(stdout);
        };
        parallel(
            "packets", "pkt", [&] { return our_packets_parallel(ours, threads); },
            [&] { return our_packets(ours); });
        parallel(
            "events", "ev", [&] { return our_events(ours, threads); }, [&] { return our_events(ours, 1); });
    }
    return 0;
}
