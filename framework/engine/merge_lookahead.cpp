#include "framework/engine/merge_lookahead.hpp"

#include <algorithm>

#include "framework/engine/trace_file.hpp"

namespace ringscope::engine {

MergeLookahead::MergeLookahead(EventMerger& merger, std::span<const std::unique_ptr<PrintDispatch>> dispatch)
    : merger_(merger), dispatch_(dispatch) {
    for (const auto& d : dispatch_) d->set_lookahead(this);
}

MergeLookahead::~MergeLookahead() {
    for (const auto& d : dispatch_) d->set_lookahead(nullptr);
}

const Record* MergeLookahead::enter(const MergeSource& src, const Record* rec) {
    current_ = &src;
    current_ts_ = rec->ts;
    peeked_ = nullptr;
    if (src.stream.next_in_page()) return rec;
    bytes_.assign(rec->data, rec->data + rec->size + rec->trailing);
    held_ = *rec;
    held_.data = bytes_.data();
    return &held_;
}

Status MergeLookahead::add_hidden(TraceSet& set, const BufferRef& buffer, std::span<const int> shown,
                                  int threads) {
    TraceFile& f = set.file(buffer.file);
    auto streams = f.open_streams(buffer.buffer, threads);
    if (!streams) return std::move(streams).error();
    for (CpuStream& s : *streams)
        if (std::find(shown.begin(), shown.end(), s.cpu()) == shown.end())
            hidden_.push_back(MergeSource{&f, buffer.file, buffer.buffer, 0, std::move(s)});
    return Status::success();
}

std::optional<Event> MergeLookahead::peek() {
    if (!current_) return std::nullopt;
    // The oldest head among the CPUs of the same file and buffer; ties to the lowest CPU (in the
    // file's order), as libtracecmd's tracecmd_peek_next_data.
    MergeSource* best = nullptr;
    const Record* rec = nullptr;
    auto consider = [&](MergeSource& s) {
        if (s.file_index != current_->file_index || s.buffer != current_->buffer) return;
        const Record* r = s.stream.peek();
        if (r && (!rec || r->ts < rec->ts ||
                  (r->ts == rec->ts && s.stream.cpu_index() < best->stream.cpu_index()))) {
            best = &s;
            rec = r;
        }
    };
    for (MergeSource& s : merger_.sources()) consider(s);
    // The CPUs --cpu leaves out move on as if they were merged (and not printed): their records
    // before the current one in the merge order are gone.
    for (MergeSource& s : hidden_) {
        for (const Record* r; (r = s.stream.peek()) != nullptr;) {
            if (r->ts > current_ts_ ||
                (r->ts == current_ts_ && s.stream.cpu_index() > current_->stream.cpu_index()))
                break;
            s.stream.advance();
        }
        consider(s);
    }
    peeked_ = nullptr;
    if (!best) return std::nullopt;
    const EventType* type = best->file->type_of(rec->data, rec->size);
    if (!type) return std::nullopt;
    peeked_ = best;
    return Event(type, best->file, {rec->data, rec->size}, rec->ts, rec->cpu, rec->missed, rec->trailing);
}

bool MergeLookahead::take() {
    if (!peeked_) return false;
    // Moving the stream on decodes nothing: the record peek() gave stays readable.
    peeked_->stream.advance();
    peeked_ = nullptr;
    return true;
}

}  // namespace ringscope::engine
