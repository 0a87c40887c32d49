// Decoding and encoding of the non-structural trace.dat options (everything except DONE, BUFFER,
// BUFFER_TEXT and the v7 section offsets, which the reader and writer handle themselves).
#pragma once

#include "framework/io/byte_cursor.hpp"
#include "framework/io/trace_dat_types.hpp"

#include <ringscope/error.hpp>

#include <cstdint>
#include <span>

namespace ringscope::io {

// Adds option ID with payload DATA (found at FILE_OFFSET) to OPTS. Unknown ids go to
// opts.unknown. Errc::corrupt when a payload is too short for what it declares.
Status decode_option(uint16_t id, std::span<const uint8_t> data, uint64_t file_offset, bool big_endian,
                     TraceDatOptions& opts);

// Appends every option of OPTS as (u16 id, u32 size, payload) records.
void encode_options(const TraceDatOptions& opts, ByteSink& out);

// Appends one option record.
void encode_option(ByteSink& out, uint16_t id, std::span<const uint8_t> payload);

}  // namespace ringscope::io
