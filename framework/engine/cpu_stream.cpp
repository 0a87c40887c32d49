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
    rec_.cpu = cpu();  // the same for every record
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
    page_end_ = page->data() + page->size();
    first_in_page_ = true;
    return true;
}

bool CpuStream::fill_forward() {
    if (failed_) return false;
    for (;;) {
        if (page_open_) {
            SubBufferRecord r;
            if (cursor_.next(r)) {
                set_record(r);
                return true;
            }
            if (cursor_.failed()) {
                Error e = cursor_.error();
                fail(std::move(e.at_offset(static_cast<int64_t>(page_file_offset_) +
                                           (e.offset() == Error::kNoOffset ? 0 : e.offset()))));
                return false;
            }
            page_open_ = false;
        }
        if (page_index_ >= pages_.page_count()) return false;
        if (!load_page(page_index_++)) return false;
        page_open_ = true;
    }
}

void CpuStream::rewind() {
    back_mode_ = false;
    page_index_ = 0;
    page_open_ = false;
    has_ = false;
}

void CpuStream::seek_end() {
    back_mode_ = true;
    back_next_page_ = pages_.page_count();
    back_page_.clear();
    back_pos_ = 0;
    has_ = false;
}

bool CpuStream::fill_back_page() {
    while (back_pos_ == 0) {
        if (failed_ || back_next_page_ == 0) return false;
        uint64_t index = --back_next_page_;
        if (!load_page(index)) return false;
        back_page_.clear();
        SubBufferRecord r;
        while (cursor_.next(r)) {
            Record rec;
            fill_record(rec, r, back_page_.empty());
            rec.cpu = cpu();
            back_page_.push_back(rec);
        }
        if (cursor_.failed()) {
            Error e = cursor_.error();
            fail(std::move(e.at_offset(static_cast<int64_t>(page_file_offset_) +
                                       (e.offset() == Error::kNoOffset ? 0 : e.offset()))));
            // The records before the bad one stay usable, as in forward mode.
        }
        back_pos_ = back_page_.size();
    }
    return true;
}

const Record* CpuStream::peek_back() {
    if (back_pos_ == 0 && !fill_back_page()) return nullptr;
    return &back_page_[back_pos_ - 1];
}

}  // namespace ringscope::engine
