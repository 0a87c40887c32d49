// Merges the CPU streams of several buffers and files into one time order. Equal timestamps go to
// the source added first (as libtracecmd picks the lowest CPU with a strict "<"); in reverse, to
// the source added last, so that a reverse walk is exactly the forward walk backwards.
#pragma once

#include <cstddef>
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

    // Forward: the next record and its source, or false at the end.
    bool next(const Record*& rec, MergeSource*& src) {
        MergeSource* best = nullptr;
        const Record* best_rec = nullptr;
        for (auto& s : sources_) {
            const Record* r = s.stream.peek();
            if (r && (!best_rec || r->ts < best_rec->ts)) {
                best = &s;
                best_rec = r;
            }
        }
        if (!best) return false;
        best->stream.advance();  // the record stays valid until this stream is peeked again
        rec = best_rec;
        src = best;
        return true;
    }

    // Reverse: newest first.
    bool next_back(const Record*& rec, MergeSource*& src) {
        MergeSource* best = nullptr;
        const Record* best_rec = nullptr;
        for (auto& s : sources_) {
            const Record* r = s.stream.peek_back();
            if (r && (!best_rec || r->ts >= best_rec->ts)) {
                best = &s;
                best_rec = r;
            }
        }
        if (!best) return false;
        best->stream.advance_back();
        rec = best_rec;
        src = best;
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
    std::vector<MergeSource> sources_;
};

}  // namespace ringscope::engine
