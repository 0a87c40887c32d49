#include "ipt/event_sequence.hpp"

#include <cstring>

#include "ipt/psb_parts.hpp"

namespace ringscope::ipt {
namespace {

constexpr size_t padded(size_t size) noexcept {
    return (size + 7) & ~size_t{7};
}

}  // namespace

EventSequence::EventSequence(const Config& config, const EventBuilder& builder, unsigned threads,
                             uint64_t part_bytes, CallerDecodes caller, PagesBehind* pages)
    : config_(config), builder_(builder), caller_(caller), pages_(pages), carry_(config), limit_(config.end) {
    built_.bytes = &payload_;
    if (threads <= 1) return;
    cuts_ = psb_cuts(config, part_bytes, pages);
    if (pages && pages->failed()) cuts_.clear();
    if (cuts_.size() < 3) {
        // One part or none: nothing to do in parallel.
        cuts_.clear();
        return;
    }
    parts_ = cuts_.size() - 1;
    counts_.parts = parts_;
    const unsigned workers = threads - 1;
    // A part's slot is reused (with its buffer) once the part that had it is released.
    slots_.resize(static_cast<size_t>(workers) + 2);
    pipeline_ = std::make_unique<OrderedPipeline>(parts_, workers, slots_.size(),
                                                  [this](size_t i) { decode_part(i); });
}

EventSequence::~EventSequence() {
    pipeline_.reset();
}

EventSequence::Part& EventSequence::slot(size_t i) {
    return slots_[i % slots_.size()];
}

void EventSequence::decode_part(size_t i) {
    Part& part = slot(i);
    part.records.clear();
    part.converged = false;
    PacketDecoder decoder(config_);
    decoder.sync_set(cuts_[i]);
    EventState state;
    ByteBuffer& records = part.records;
    BuiltEvent event{.bytes = &records};
    const uint8_t* stop = config_.begin + cuts_[i + 1];
    for (;;) {
        if (!part.converged && state.converged()) {
            part.converged = true;
            decoder.get_offset(part.converged_at);
            part.converged_record = records.size();
        }
        // The payload goes straight after its record's header, which is filled in then.
        const size_t at = records.size();
        event.base = at + sizeof(Record);
        if (!builder_.next(decoder, state, event, stop)) {
            records.resize(at);
            break;
        }
        Record r{event.type, static_cast<uint32_t>(records.size() - event.base), event.ts, event.missed};
        std::memcpy(records.data() + at, &r, sizeof r);
        // The padding is zeroed: the records are bytes someone may dump or compare whole.
        const size_t pad = padded(r.size) - r.size;
        if (pad) std::memset(records.extend(pad), 0, pad);
    }
    decoder.get_offset(part.reached);
    part.end.emplace(decoder);
    part.end_state = state;
}

bool EventSequence::keep_up() {
    uint64_t at = 0;
    if (!pages_ || carry_.get_offset(at) < 0 || pages_->at(at)) return true;
    state_.status = pages_->error();
    state_.done = true;
    return false;
}

void EventSequence::release_current() {
    if (next_part_ == 0) return;
    pipeline_->release(next_part_ - 1);
}

bool EventSequence::advance() {
    if (!keep_up()) return false;
    uint64_t at = 0;
    carry_.get_offset(at);
    for (;;) {
        release_current();
        if (next_part_ >= parts_) {
            // Only the end of the stream leaves the last part; should it not, decode on serially.
            limit_ = config_.end;
            return !state_.done;
        }
        const size_t i = next_part_++;
        const uint64_t stop = cuts_[i + 1];
        const bool ahead = caller_ == CallerDecodes::when_ahead;
        if (i == claimed_ || (ahead && pipeline_->claim(i))) {
            // No worker has started it: the serial decode goes through it, sooner than a worker
            // would (and without a prefix decoded twice).
            ++counts_.claimed;
            if (at < stop) {
                limit_ = config_.begin + stop;
                return true;
            }
            continue;
        }
        if (ahead && i + 1 < parts_ && !pipeline_->ready(i) && pipeline_->claim(i + 1)) claimed_ = i + 1;
        pipeline_->wait(i);
        const Part& part = slot(i);
        if (cuts_[i] == at) {
            if (part.converged) {
                joining_ = true;
                limit_ = config_.begin + part.converged_at;
            } else {
                ++counts_.redecoded;
                limit_ = config_.begin + stop;
            }
            return true;
        }
        ++counts_.dropped;
        if (at < stop) {
            limit_ = config_.begin + stop;
            return true;
        }
    }
}

bool EventSequence::next(EventView& out) {
    if (!started_) {
        started_ = true;
        if (pages_ && pages_->failed()) {
            state_.status = pages_->error();
            return false;
        }
        if (!builder_.resync(carry_, state_)) return false;
        if (pipeline_ && !advance()) return false;
    }
    for (;;) {
        if (reading_) {
            const Part& part = slot(next_part_ - 1);
            if (cursor_ < part.records.size()) {
                Record r;
                std::memcpy(&r, part.records.data() + cursor_, sizeof r);
                out.type = static_cast<TypeIndex>(r.type);
                out.ts = r.ts;
                out.missed = r.missed;
                out.payload = std::span<const uint8_t>(part.records.data() + cursor_ + sizeof r, r.size);
                cursor_ += sizeof r + padded(r.size);
                return true;
            }
            // The serial decode goes on from where the worker stopped, in the worker's state.
            reading_ = false;
            carry_ = *part.end;
            state_ = part.end_state;
            if (state_.done || !advance()) return false;
            continue;
        }
        if (builder_.next(carry_, state_, built_, limit_)) {
            if (!keep_up()) return false;
            out.type = built_.type;
            out.ts = built_.ts;
            out.missed = built_.missed;
            out.payload = built_.payload();
            return true;
        }
        if (state_.done || !pipeline_) return false;
        if (joining_) {
            joining_ = false;
            const size_t i = next_part_ - 1;
            uint64_t at = 0;
            carry_.get_offset(at);
            if (at == slot(i).converged_at) {
                ++counts_.joined;
                reading_ = true;
                cursor_ = slot(i).converged_record;
                continue;
            }
            // The serial decode did not meet the worker's converged point (it cannot: both
            // decode the same packets from the same PSB): decode the rest of the part too.
            ++counts_.redecoded;
            if (at < cuts_[i + 1]) {
                limit_ = config_.begin + cuts_[i + 1];
                continue;
            }
        }
        if (!advance()) return false;
    }
}

}  // namespace ringscope::ipt
