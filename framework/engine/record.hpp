// One event record as the engine moves it: where its payload is and when it happened.
#pragma once

#include <cstdint>

namespace ringscope::engine {

struct Record {
    uint64_t ts = 0;                // after the file's clock conversions (what report prints)
    uint64_t raw_ts = 0;            // as the ring buffer has it
    const uint8_t* data = nullptr;  // payload, valid until the stream moves past its page
    uint32_t size = 0;
    uint32_t record_size = 0;  // payload + record header (kbuffer_curr_size)
    uint32_t trailing = 0;     // readable bytes after the payload: the rest of its sub-buffer and
                               // what follows it in memory (io::CpuPageReader::bytes_after_page)
    uint64_t offset = 0;       // of the record header: page offset in the file + index in the page
    int64_t missed = 0;        // events lost before this one on its CPU: 0, count, -1 unknown
    int cpu = 0;               // the CPU id as recorded
};

}  // namespace ringscope::engine
