// The look-ahead of a time merge for the printers (PrintDispatch's RecordLookahead): the record
// after the one being printed among the CPUs of its buffer of its file, as libtracecmd's
// tracecmd_peek_next_data gives it on the handle being printed, and taking that record out of the
// merge (tracecmd_read_data), as trace-cmd's function_graph handler does with a leaf's exit.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "framework/engine/event_merger.hpp"
#include "framework/engine/print_dispatch.hpp"
#include "framework/engine/record.hpp"
#include "framework/engine/trace_set.hpp"

namespace ringscope::engine {

class MergeLookahead final : public RecordLookahead {
  public:
    // Installs itself in every dispatch (the printers of the merge's files) for its lifetime.
    MergeLookahead(EventMerger& merger, std::span<const std::unique_ptr<PrintDispatch>> dispatch);
    ~MergeLookahead() override;
    MergeLookahead(const MergeLookahead&) = delete;
    MergeLookahead& operator=(const MergeLookahead&) = delete;

    // Called with each record that a printer may print (its type is overridden) as the merge
    // gives it, before its Event is made; returns the record to use. That is a copy (the payload,
    // the rest of its page and the Record) when the record is the last of its CPU's page: looking
    // ahead loads the next page, which may overwrite the bytes (and the Record) of this one.
    const Record* enter(const MergeSource& src, const Record* rec);

    // report --cpu: the other CPUs of BUFFER, which trace-cmd's look-ahead still sees (and takes
    // from) although it prints only the listed ones: trace-cmd 3.1.6 reads them in time order and
    // drops their records.
    Status add_hidden(TraceSet& set, const BufferRef& buffer, std::span<const int> shown, int threads);

    std::optional<Event> peek() override;
    bool take() override;

  private:
    EventMerger& merger_;
    std::span<const std::unique_ptr<PrintDispatch>> dispatch_;
    std::vector<MergeSource> hidden_;
    const MergeSource* current_ = nullptr;
    uint64_t current_ts_ = 0;
    MergeSource* peeked_ = nullptr;
    Record held_;
    std::vector<uint8_t> bytes_;
};

}  // namespace ringscope::engine
