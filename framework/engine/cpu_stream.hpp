// The records of one CPU of one buffer, in ring-buffer order, forwards or backwards, one page in
// memory at a time (the page reader keeps one decompressed chunk).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <ringscope/error.hpp>
#include <ringscope/sub_buffer.hpp>

#include "framework/engine/record.hpp"
#include "framework/engine/time_converter.hpp"
#include "framework/io/cpu_page_reader.hpp"

namespace ringscope::engine {

class CpuStream {
  public:
    // cpu_index: the position of this CPU in the file's CPU table (what time sync is keyed on).
    CpuStream(io::CpuPageReader pages, const SubBufferLayout& layout, const TimeConverter* clock,
              int cpu_index);

    int cpu() const noexcept { return static_cast<int>(pages_.cpu()); }
    int cpu_index() const noexcept { return cpu_index_; }
    // Another stream of the same records, at the start, with its own page reader (another thread).
    CpuStream clone() const { return CpuStream(pages_.clone(), layout_, clock_, cpu_index_); }

    // Forward: the record at the cursor, or nullptr at the end (or on an error: see status()).
    // The open page's records are decoded in one pass when it loads (a tight loop, no per-record
    // branch on the page state), so this is an index check; page changes are out of line.
    const Record* peek() {
        if (fwd_pos_ < page_records_) return &records_[fwd_pos_];
        return fill_forward() ? &records_[fwd_pos_] : nullptr;
    }
    void advance() noexcept { ++fwd_pos_; }
    // The next forward record is decoded already: peek() loads no page, so the bytes of the
    // records handed out before stay where they are.
    bool next_in_page() const noexcept { return fwd_pos_ < page_records_; }

    // Back to the first record (forward mode) or to the last one (reverse mode).
    void rewind();
    void seek_end();
    // Forward mode, at the first record of page INDEX (page_count(): the end). The page's missed
    // events show on its first record, as when the walk reaches it from the start.
    void seek_page(uint64_t index) noexcept {
        rewind();
        page_index_ = index;
    }

    // Reverse: the record before the cursor, newest first.
    const Record* peek_back() {
        if (back_pos_ == 0 && !fill_back_page()) return nullptr;
        return &records_[back_pos_ - 1];
    }
    void advance_back() noexcept {
        if (back_pos_ > 0) --back_pos_;
    }

    // Ok, or the first problem met (a page that does not load, a record past the data).
    const Status& status() const noexcept { return status_; }
    uint64_t pages_read() const noexcept { return pages_read_; }
    // Compressed data: the next chunk is decompressed by RUNNER's threads while this one is read
    // (io::CpuPageReader::decompress_ahead); null: all on the caller's thread.
    void decompress_ahead(std::shared_ptr<io::TaskRunner> runner) {
        pages_.decompress_ahead(std::move(runner));
    }
    const io::CpuPageReader& pages() const noexcept { return pages_; }
    // io::CpuPageReader::share_chunks.
    void share_chunks(std::shared_ptr<io::SharedChunks> shared) { pages_.share_chunks(std::move(shared)); }

    // How far a forward walk is, for progress: the ring-buffer bytes of this CPU (uncompressed)
    // and those of the pages loaded so far.
    uint64_t data_bytes() const noexcept { return pages_.data_size(); }
    uint64_t data_bytes_loaded() const noexcept {
        uint64_t n = page_index_ * pages_.page_size();
        return n < pages_.data_size() ? n : pages_.data_size();
    }
    uint64_t page_count() const noexcept { return pages_.page_count(); }
    // Pages loaded by all the streams of the process: tests check that a run reads its inputs once.
    static uint64_t pages_loaded_in_process() noexcept;

  private:
    // `first`: no record of this page was handed out yet.
    void fill_record(Record& rec, const SubBufferRecord& r, bool first) const noexcept {
        rec.raw_ts = r.ts;
        rec.ts = clock_ ? clock_->convert(r.ts, cpu_index_) : r.ts;
        rec.data = r.data;
        rec.size = r.size;
        rec.trailing = static_cast<uint32_t>(readable_end_ - (r.data + r.size));
        rec.record_size = static_cast<uint32_t>(r.data - (page_base_ + r.offset)) + r.size;
        rec.offset = page_file_offset_ + r.offset;
        // kbuffer reports the page's missed events only while its very first record is current.
        rec.missed = (first && r.offset == cursor_.data_offset()) ? cursor_.missed_events() : 0;
    }
    bool fill_forward();
    bool load_page(uint64_t index);
    // Decodes the loaded page's records into records_ (page_records_ of them); false when a
    // record is corrupt (the records before it are there).
    bool decode_page();
    void fail_page();
    bool fill_back_page();
    void fail(Error e);

    io::CpuPageReader pages_;
    SubBufferLayout layout_;
    const TimeConverter* clock_;
    int cpu_index_;
    SubBufferCursor cursor_;
    uint64_t page_index_ = 0;  // next page to load (forward)
    uint64_t page_file_offset_ = 0;
    const uint8_t* page_base_ = nullptr;
    // The page's end and the bytes after it its reader keeps (io::CpuPageReader::bytes_after_page).
    const uint8_t* readable_end_ = nullptr;
    bool failed_ = false;
    // The page's corrupt record, reported once the records before it are taken.
    bool page_failed_ = false;
    Status status_;

    // The decoded records of the open page (records_ only grows: no allocation per page).
    std::vector<Record> records_;
    size_t page_records_ = 0;
    size_t fwd_pos_ = 0;  // forward: the next record

    // Reverse mode: the page's records walked from the end.
    size_t back_pos_ = 0;          // records left (the next is records_[back_pos_ - 1])
    uint64_t back_next_page_ = 0;  // pages left to load backwards
    bool back_mode_ = false;

    uint64_t pages_read_ = 0;
};

}  // namespace ringscope::engine
