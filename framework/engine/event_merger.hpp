// Merges the CPU streams of several buffers and files into one time order. Equal timestamps go to
// the source added first (as libtracecmd picks the lowest CPU with a strict "<"); in reverse, to
// the source added last, so that a reverse walk is exactly the forward walk backwards.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
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
    void add(MergeSource source) {
        run_ = nullptr;
        sources_.push_back(std::move(source));
    }
    // Callers may move the streams themselves: the next next() looks at every source again.
    std::vector<MergeSource>& sources() noexcept {
        run_ = nullptr;
        return sources_;
    }
    // The position of SRC (a source next() gave) among sources(); unlike sources(), it leaves the
    // current run alone, so a caller can ask it for every record.
    size_t index_of(const MergeSource* src) const noexcept {
        return static_cast<size_t>(src - sources_.data());
    }

    // The source whose record comes next, oldest first (peek_next) or newest first (peek_back),
    // without moving; `cpus` empty = every source, else only those CPU ids. nullptr at the end.
    MergeSource* peek_next(const Record*& rec, std::span<const int> cpus = {}) {
        run_ = nullptr;
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
        run_ = nullptr;
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
    // its stream is peeked again. Only the source taken last has a new head, so while that head
    // stays before the others' oldest head (the run limit) it is the answer without a scan.
    bool next(const Record*& rec, MergeSource*& src, std::span<const int> cpus = {}) {
        if (run_ && cpus.empty()) {
            const Record* r = run_->stream.peek();
            if (r && (r->ts < run_limit_ || (r->ts == run_limit_ && run_wins_ties_))) {
                rec = r;
                src = run_;
                run_->stream.advance();
                return true;
            }
        }
        if (!cpus.empty()) {
            src = peek_next(rec, cpus);
            if (!src) return false;
            src->stream.advance();
            return true;
        }
        return next_scan(rec, src);
    }

    // Reverse: newest first.
    bool next_back(const Record*& rec, MergeSource*& src, std::span<const int> cpus = {}) {
        src = peek_back(rec, cpus);
        if (!src) return false;
        src->stream.advance_back();
        return true;
    }

    // Every source's next chunk is decompressed ahead by RUNNER (see CpuStream::decompress_ahead).
    void decompress_ahead(const std::shared_ptr<io::TaskRunner>& runner) {
        for (auto& s : sources_) s.stream.decompress_ahead(runner);
    }
    void rewind() {
        run_ = nullptr;
        for (auto& s : sources_) s.stream.rewind();
    }
    void seek_end() {
        run_ = nullptr;
        for (auto& s : sources_) s.stream.seek_end();
    }

    // The first error any stream met (streams stop at their first error; the others go on),
    // with the file it came from.
    Status status() const;

  private:
    // Every source: the oldest head (ties to the source added first) and the run limit.
    bool next_scan(const Record*& rec, MergeSource*& src);

    static bool wanted(const MergeSource& s, std::span<const int> cpus) noexcept {
        return cpus.empty() || std::find(cpus.begin(), cpus.end(), s.stream.cpu()) != cpus.end();
    }

    std::vector<MergeSource> sources_;
    // The source next() took last, and the oldest head among the others when it was taken:
    // its records come next while they are older (or as old, when it was added before the
    // source holding that head).
    MergeSource* run_ = nullptr;
    uint64_t run_limit_ = 0;
    bool run_wins_ties_ = false;
};

}  // namespace ringscope::engine
