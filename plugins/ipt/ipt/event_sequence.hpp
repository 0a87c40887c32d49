// The events of a whole stream in stream order, decoded serially or, with threads, in parts cut at
// PSBs (psb_cuts) that workers decode from a fresh state while the caller takes them in order.
//
// A part decoded from a fresh state makes the same events as the serial decode from the first
// point where its EventState has converged (a TSC and a full IP, or a resync: see EventState);
// before that point the last IP and the time still depend on the previous part. So the caller
// decodes each part's prefix again, serially, from the state the previous part ended in, and
// takes the worker's events from that point on. A part whose start the serial decode does not
// land on (a packet or a resync crossed the cut) is not used: decoding goes on serially from where
// the previous part stopped, as in decode_psb_parts. The output is that of one serial decode.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "ipt/event_builder.hpp"
#include "ipt/ordered_pipeline.hpp"
#include "ipt/pages_behind.hpp"

namespace ringscope::ipt {

struct EventView {
    TypeIndex type = t_psb;
    uint64_t ts = 0;
    int64_t missed = 0;
    std::span<const uint8_t> payload;  // valid until the next call to next()
};

class EventSequence {
  public:
    // Whether the serial decode takes parts no worker has started: the part it needs next, and,
    // when it finds that part still being decoded (it reads events faster than a worker makes
    // them), the part after it. Without it, a caller that only reads events gets no faster with
    // two threads than with one: its single worker does all the decoding. Tests turn it off to
    // make the workers take every part.
    enum class CallerDecodes { when_ahead, never };

    // threads <= 1: one serial decode on the caller's thread. Otherwise threads - 1 workers (the
    // caller is the last thread), at most threads + 1 parts in flight.
    // With pages (over the mapped file config's bytes are), the pages behind the serial decode are
    // given back, and the events end with an error where the file shrank.
    EventSequence(const Config& config, const EventBuilder& builder, unsigned threads, uint64_t part_bytes,
                  CallerDecodes caller = CallerDecodes::when_ahead, PagesBehind* pages = nullptr);
    ~EventSequence();

    // The next event; false at the end or on an error (status()).
    bool next(EventView& out);
    const Status& status() const noexcept { return state_.status; }

    // How parts were used, for tests: decoded again whole, joined after a prefix, or taken by the
    // serial decode before a worker started them.
    struct Counts {
        size_t parts = 0, joined = 0, redecoded = 0, dropped = 0, claimed = 0;
    };
    const Counts& counts() const noexcept { return counts_; }

  private:
    struct Part {
        ByteBuffer records;  // per event: Record, then the payload padded to 8 bytes
        bool converged = false;
        uint64_t converged_at = 0;    // the packet offset where the state had converged
        size_t converged_record = 0;  // the first record of the packets from there
        std::optional<PacketDecoder> end;
        EventState end_state;
        uint64_t reached = 0;
    };
    struct Record {
        uint32_t type, size;
        uint64_t ts;
        int64_t missed;
    };

    Part& slot(size_t i);
    void decode_part(size_t i);
    // Moves to the next part the serial decode needs; false when there is none.
    bool advance();
    void release_current();
    // Moves pages_ to where the serial decode is; false (status() says why) where the file shrank.
    bool keep_up();

    Config config_;
    const EventBuilder& builder_;
    CallerDecodes caller_;
    PagesBehind* pages_;
    std::vector<uint64_t> cuts_;
    size_t parts_ = 0;
    std::vector<Part> slots_;
    std::unique_ptr<OrderedPipeline> pipeline_;

    // The serial decode: it makes the events of prefixes and of parts that are not used.
    PacketDecoder carry_;
    EventState state_;
    ByteBuffer payload_;
    BuiltEvent built_;
    const uint8_t* limit_;
    bool started_ = false;
    // Parts before next_part_ were taken (the last of them is the current one); joining_: the
    // current part's records follow once the serial decode reaches its converged point.
    size_t next_part_ = 0;
    size_t claimed_ = SIZE_MAX;  // a part ahead that the serial decode took for itself
    bool joining_ = false, reading_ = false;
    size_t cursor_ = 0;
    Counts counts_;
};

}  // namespace ringscope::ipt
