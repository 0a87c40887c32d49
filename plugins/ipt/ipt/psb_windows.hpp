// A PT stream read from its file in bounded windows that end at PSBs, for a pass over the whole
// stream in memory flat in its size (`ipt summary`). Each window's parts are decoded as
// decode_cut_parts does (on threads, in stream order, the carry going on across cuts and across
// windows), so the results are those of one serial decode of the whole file.
//
// Why a window's decode depends on its bytes only: decoding stops at a PSB (or, when a packet
// crossed it, just past it) at least kMargin bytes before the window's end, and every look at the
// bytes (a packet, at most a PSB long; the PSB search, which walks a run of PSB pattern to its end
// and starts up to 15 bytes back) stays within kMargin of the positions decoded. The windows
// start at file offsets that are multiples of 64, in a buffer aligned to 64, so that the PSB
// search's aligned words are those of the whole file. A window without a PSB past the position
// grows (doubled) until it has one or holds the rest of the file.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <ringscope/error.hpp>

#include "ipt/config.hpp"
#include "ipt/packet_decoder.hpp"
#include "ipt/psb_parts.hpp"

namespace ringscope::ipt {

class StreamWindow {
  public:
    static constexpr uint64_t kMargin = 64;
    static constexpr uint64_t kMinBytes = 4 * kMargin;

    // Opens path (a file, or a pipe read front to back) and reads its first window_bytes.
    static Expected<StreamWindow> open(const std::string& path, uint64_t window_bytes);

    const uint8_t* data() const noexcept { return data_.get(); }
    size_t size() const noexcept { return size_; }
    uint64_t base() const noexcept { return base_; }     // file offset of data()[0]
    bool last() const noexcept { return eof_; }          // the window reaches the file's end
    size_t peak_bytes() const noexcept { return cap_; }  // the largest buffer it used

    // Moves the window to start at file offset keep (a multiple of 64 in [base, base + size]) and
    // fills it.
    Status advance(uint64_t keep);
    // Doubles the buffer and fills it.
    Status grow();

  private:
    Status fill();
    struct Free {
        void operator()(uint8_t* p) const noexcept;
    };
    struct Fd {
        int fd = -1;
        ~Fd();
    };
    std::unique_ptr<Fd> fd_;
    std::string path_;
    std::unique_ptr<uint8_t, Free> data_;
    size_t size_ = 0, cap_ = 0;
    uint64_t base_ = 0;
    bool eof_ = false;
};

// Offsets (in the window) to cut the part from `at` at: at, PSBs about part_bytes apart, and the
// window's stop (the last PSB that ends kMargin before the window's end; its end when it is the
// last). Fewer than two when the window holds no PSB after at.
std::vector<uint64_t> window_cuts(const Config& window, bool last, uint64_t at, uint64_t part_bytes);

// Where the stream's first PSB is (a file offset), moving the window along; false when it has none.
Expected<bool> find_first_psb(StreamWindow& in, const Config& config, uint64_t& first);

struct WindowCount {
    PartCount parts;
    size_t windows = 0;
    uint64_t size = 0;  // the stream's bytes
};

// run/take as for decode_psb_parts; run's offsets are in the decoder's window
// (decoder.config()). The stream is decoded from its first PSB to its end.
template <class Part, class Run, class Take>
Expected<WindowCount> decode_psb_windows(StreamWindow& in, const Config& config, unsigned threads,
                                         uint64_t part_bytes, Run run, Take take) {
    WindowCount count;
    auto window = [&] {
        Config c = config;
        c.begin = in.data();
        c.end = in.data() + in.size();
        return c;
    };
    uint64_t first = 0;
    auto found = find_first_psb(in, config, first);
    if (!found) return std::move(found).error();
    if (*found) {
        Config c = window();
        PacketDecoder carry(c);
        carry.sync_set(first - in.base());
        uint64_t carry_base = in.base();
        uint64_t at = first;  // where decoding stopped (file offset)
        for (;;) {
            if (in.last() && at >= in.base() + in.size()) break;
            c = window();
            std::vector<uint64_t> cuts = window_cuts(c, in.last(), at - in.base(), part_bytes);
            if (cuts.size() < 2) {
                if (Status s = in.grow(); !s) return s.error();
                continue;
            }
            ++count.windows;
            carry.rebase(c, in.base() - carry_base);
            carry_base = in.base();
            uint64_t rel = at - in.base();
            decode_cut_parts<Part>(cuts, threads, carry, rel, count.parts, run, take);
            at = in.base() + rel;
            if (in.last()) break;
            const uint64_t stop = in.base() + cuts.back();
            const uint64_t keep = stop > StreamWindow::kMargin ? (stop - StreamWindow::kMargin) / 64 * 64 : 0;
            if (Status s = in.advance(std::max(keep, in.base())); !s) return s.error();
        }
    }
    while (!in.last())
        if (Status s = in.advance((in.base() + in.size()) / 64 * 64); !s) return s.error();
    count.size = in.base() + in.size();
    return count;
}

}  // namespace ringscope::ipt
