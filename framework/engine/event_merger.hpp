// Merges the CPU streams of several buffers and files into one time order. Equal timestamps go to
// the source added first (as libtracecmd picks the lowest CPU with a strict "<"); in reverse, to
// the source added last, so that a reverse walk is exactly the forward walk backwards.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <vector>

#include "framework/engine/cpu_stream.hpp"

namespace ringscope::engine {

class TraceFile;

struct MergeSource {
    TraceFile* file = nullptr;
    size_t file_index = 0;
    size_t buffer = 0;
    int global_cpu = 0;  // n-th CPU across all sources (what multi-file callbacks get)
    CpuStream stream;
};

class EventMerger {
  public:
    void add(MergeSource source) { sources_.push_back(std::move(source)); }
    std::vector<MergeSource>& sources() noexcept { return sources_; }

    // The source whose record comes next, oldest first (peek_next) or newest first (peek_back),
    // without moving; `cpus` empty = every source, else only those CPU ids. nullptr at the end.
    MergeSource* peek_next(const Record*& rec, std::span<const int> cpus = {}) {
        MergeSource* best = nullptr;
        rec = nullptr;
        for (auto& s : sources_) {
            if (!wanted(s, cpus)) continue;
            const Record* r = s.stream.peek();
            if (r && (!rec || r->ts < rec->ts)) {
                best = &s;
                rec = r;
            }
        }
        return best;
    }
    MergeSource* peek_back(const Record*& rec, std::span<const int> cpus = {}) {
        MergeSource* best = nullptr;
        rec = nullptr;
        for (auto& s : sources_) {
            if (!wanted(s, cpus)) continue;
            const Record* r = s.stream.peek_back();
            if (r && (!rec || r->ts >= rec->ts)) {
                best = &s;
                rec = r;
            }
        }
        return best;
    }

    // Forward: the next record and its source, or false at the end. The record stays valid until
    // its stream is peeked again.
    bool next(const Record*& rec, MergeSource*& src, std::span<const int> cpus = {}) {
        src = peek_next(rec, cpus);
        if (!src) return false;
        src->stream.advance();
        return true;
    }

    // Reverse: newest first.
    bool next_back(const Record*& rec, MergeSource*& src, std::span<const int> cpus = {}) {
        src = peek_back(rec, cpus);
        if (!src) return false;
        src->stream.advance_back();
        return true;
    }

    void rewind() {
        for (auto& s : sources_) s.stream.rewind();
    }
    void seek_end() {
        for (auto& s : sources_) s.stream.seek_end();
    }

    // The first error any stream met (streams stop at their first error; the others go on),
    // with the file it came from.
    Status status() const;

  private:
    static bool wanted(const MergeSource& s, std::span<const int> cpus) noexcept {
        return cpus.empty() || std::find(cpus.begin(), cpus.end(), s.stream.cpu()) != cpus.end();
    }

    std::vector<MergeSource> sources_;
};

}  // namespace ringscope::engine
