// `ringscope dump-pages FILE [SUBBUF_SIZE]`: every sub-buffer of a raw trace_pipe_raw capture, with
// the lines of the kbuffer man-page example for each event.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>

#include "ringscope/sub_buffer.hpp"

namespace ringscope::ringbuffer {

// Per sub-buffer N at file offset O:
//   page N offset O: timestamp:T subbuffer_size:S start_of_data:D missed_events:M
//    event %3d ts:%lld\trecord_size:%d size:%d\tindex:%d offset:%d      (one per event)
//   page N: K events
// or `page N offset O: load failed` (the reason goes to `err`) and the walk goes on. A record that
// runs past the data ends that sub-buffer's events (reason to `err`). subbuf_size 0 = page size.
// Returns 0, or 1 when the file cannot be read or the size is unusable (message on `err`).
int dump_pages(const std::string& path, size_t subbuf_size, std::FILE* out, std::FILE* err);
// The same with the kernel's long size (the sub-buffer header's commit word): 4, 8, or 0 to detect
// it from the data (detect_long_size).
int dump_pages(const std::string& path, size_t subbuf_size, unsigned long_size, std::FILE* out,
               std::FILE* err);

// The long size of the kernel that wrote a raw capture, from its first sub-buffers with data: the
// one whose layout walks each of them within its commit size, a 64-bit commit word having
// nothing but flags in its upper half (where a 32-bit page has its first record's header). 0 when
// the file cannot be read or neither fits alone (an empty capture, or pages that both read); the
// caller keeps the host's then.
unsigned detect_long_size(const std::string& path, uint32_t subbuf_size);

// The same for data of another machine (byte order, long size); layout.subbuf_size is the stride.
int dump_pages(const std::string& path, const SubBufferLayout& layout, std::FILE* out, std::FILE* err);

}  // namespace ringscope::ringbuffer
