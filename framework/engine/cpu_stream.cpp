#include "framework/engine/cpu_stream.hpp"

#include <atomic>

namespace ringscope::engine {
namespace {
std::atomic<uint64_t> g_pages_loaded{0};
}  // namespace

uint64_t CpuStream::pages_loaded_in_process() noexcept {
    return g_pages_loaded.load(std::memory_order_relaxed);
}

CpuStream::CpuStream(io::CpuPageReader pages, const SubBufferLayout& layout, const TimeConverter* clock,
                     int cpu_index)
    : pages_(std::move(pages)), layout_(layout), clock_(clock), cpu_index_(cpu_index), cursor_(layout) {
    layout_.subbuf_size = pages_.page_size();
    cursor_ = SubBufferCursor(layout_);
}

void CpuStream::fail(Error e) {
    if (!failed_) status_ = Status(std::move(e));
    failed_ = true;
}

bool CpuStream::load_page(uint64_t index) {
    auto page = pages_.page(index);
    if (!page) {
        fail(std::move(page).error());
        return false;
    }
    ++pages_read_;
    g_pages_loaded.fetch_add(1, std::memory_order_relaxed);
    if (Status st = cursor_.reset(*page); !st) {
        Error e = std::move(st).error();
        fail(std::move(e.at_offset(static_cast<int64_t>(pages_.page_offset(index)) +
                                   (e.offset() == Error::kNoOffset ? 0 : e.offset()))));
        return false;
    }
    page_file_offset_ = pages_.page_offset(index);
    page_base_ = page->data();
    readable_end_ = page->data() + page->size() + pages_.bytes_after_page();
    return true;
}

bool CpuStream::decode_page() {
    size_t n = 0, cap = records_.size();
    Record* out = records_.data();
    const int cpu_id = cpu();
    SubBufferRecord r;
    while (cursor_.next(r)) {
        if (n == cap) {
            records_.resize(cap = n < 64 ? 64 : 2 * n);
            out = records_.data();
        }
        fill_record(out[n], r, n == 0);
        out[n].cpu = cpu_id;
        ++n;
    }
    page_records_ = n;
    return !cursor_.failed();
}

void CpuStream::fail_page() {
    Error e = cursor_.error();
    fail(std::move(e.at_offset(static_cast<int64_t>(page_file_offset_) +
                               (e.offset() == Error::kNoOffset ? 0 : e.offset()))));
}

bool CpuStream::fill_forward() {
    page_records_ = 0;
    fwd_pos_ = 0;
    if (page_failed_) {
        page_failed_ = false;
        fail_page();
    }
    if (failed_) return false;
    while (page_index_ < pages_.page_count()) {
        if (!load_page(page_index_++)) return false;
        // A corrupt record ends the walk after the records before it, as kbuffer's walk would.
        page_failed_ = !decode_page();
        if (page_records_ != 0) return true;
        if (page_failed_) {
            page_failed_ = false;
            fail_page();
            return false;
        }
    }
    return false;
}

void CpuStream::rewind() {
    back_mode_ = false;
    page_index_ = 0;
    page_failed_ = false;
    page_records_ = 0;
    fwd_pos_ = 0;
}

void CpuStream::seek_end() {
    back_mode_ = true;
    back_next_page_ = pages_.page_count();
    back_pos_ = 0;
    page_records_ = 0;
    fwd_pos_ = 0;
}

bool CpuStream::fill_back_page() {
    while (back_pos_ == 0) {
        if (failed_ || back_next_page_ == 0) return false;
        uint64_t index = --back_next_page_;
        if (!load_page(index)) return false;
        // The records before a corrupt one stay usable, as in forward mode.
        if (!decode_page()) fail_page();
        back_pos_ = page_records_;
    }
    return true;
}

}  // namespace ringscope::engine
