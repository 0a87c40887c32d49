#include "framework/engine/event_merger.hpp"

#include "framework/engine/trace_file.hpp"

namespace ringscope::engine {

bool EventMerger::next_scan(const Record*& rec, MergeSource*& src) {
    MergeSource* best = nullptr;
    const Record* best_rec = nullptr;
    const Record* second = nullptr;  // the oldest head of the other sources
    bool best_before_second = true;  // best was added before the source of `second`
    for (auto& s : sources_) {
        const Record* r = s.stream.peek();
        if (!r) continue;
        if (!best_rec || r->ts < best_rec->ts) {
            second = best_rec;
            best_before_second = false;
            best = &s;
            best_rec = r;
        } else if (!second || r->ts < second->ts) {
            second = r;
            best_before_second = true;
        }
    }
    run_ = best;
    if (!best) return false;
    run_limit_ = second ? second->ts : UINT64_MAX;
    run_wins_ties_ = !second || best_before_second;
    rec = best_rec;
    src = best;
    best->stream.advance();
    return true;
}

Status EventMerger::status() const {
    for (const auto& s : sources_) {
        if (s.stream.status()) continue;
        Error e = s.stream.status().error();
        if (s.file) e.in_file(s.file->path());
        return e;
    }
    return Status::success();
}

}  // namespace ringscope::engine
