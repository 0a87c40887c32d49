// Events waiting for the packet they bind to (libipt 2.0's pt_event_queue): one small ring per
// binding, plus the one standalone event.
#pragma once

#include <array>
#include <cstdint>

#include "ipt/query_event.hpp"

namespace ringscope::ipt {

// evb_exstop, evb_pwre, evb_now and evb_cfe only with libipt master's events (QueryCore::master_):
// MWAIT and PWRE wait for the EXSTOP, evb_now holds events published before the next packet's,
// evb_cfe an EVD's event waiting for its CFE.
enum Binding : uint8_t { evb_psbend, evb_tip, evb_fup, evb_exstop, evb_pwre, evb_now, evb_cfe, evb_max };

class EventQueue {
  public:
    static constexpr uint8_t kMax = 8;  // ring size; one slot stays free as a gap

    void init() noexcept {
        begin_.fill(0);
        end_.fill(0);
    }
    QueryEvent* standalone() noexcept {
        standalone_ = QueryEvent{};
        return &standalone_;
    }
    // A new event at the end of the binding's ring; nullptr when full.
    QueryEvent* enqueue(Binding b) noexcept {
        uint8_t idx = end_[b];
        uint8_t end = inc(idx);
        if (begin_[b] == inc(end)) return nullptr;
        end_[b] = end;
        QueryEvent* ev = &queue_[b][idx];
        *ev = QueryEvent{};
        return ev;
    }
    // The oldest event of the binding; valid until the ring wraps onto it.
    QueryEvent* dequeue(Binding b) noexcept {
        uint8_t begin = begin_[b];
        if (begin == end_[b]) return nullptr;
        begin_[b] = inc(begin);
        return &queue_[b][begin];
    }
    bool is_standalone(const QueryEvent* ev) const noexcept { return ev == &standalone_; }
    QueryEvent* peek(Binding b) noexcept { return begin_[b] == end_[b] ? nullptr : &queue_[b][begin_[b]]; }
    void clear(Binding b) noexcept { begin_[b] = end_[b] = 0; }
    bool pending(Binding b) const noexcept { return begin_[b] != end_[b]; }
    QueryEvent* find(Binding b, EventKind kind) noexcept {
        for (uint8_t i = begin_[b]; i != end_[b]; i = inc(i))
            if (queue_[b][i].type == kind) return &queue_[b][i];
        return nullptr;
    }

  private:
    friend struct FlowState;
    static uint8_t inc(uint8_t i) noexcept { return static_cast<uint8_t>((i + 1) % kMax); }

    std::array<std::array<QueryEvent, kMax>, evb_max> queue_{};
    std::array<uint8_t, evb_max> begin_{}, end_{};
    QueryEvent standalone_{};
};

}  // namespace ringscope::ipt
