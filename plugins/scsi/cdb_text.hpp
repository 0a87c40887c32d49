// libtraceevent 1.7.1's scsi_trace_parse_cdb: a SCSI command descriptor block in words, as the
// kernel's scsi trace prints it ("lba=2048 txlen=8 protect=0" for READ_10/WRITE_10, "regions=N" for
// UNMAP, "READ_CAPACITY_16 lba=0 alloc_len=32", "READ_32 ...", "-" for the rest). (The kernel's
// version ends the text with a NUL; libtraceevent 1.7.1's prints none.)
#pragma once

#include <cstdint>
#include <span>

#include <ringscope/text_buffer.hpp>

namespace ringscope::scsi {

// `cdb` runs from the command bytes to the end of the record; bytes the decoder wants beyond it
// read as 0 (libtraceevent would read whatever memory follows). `len` is unused, as in the plugin.
void append_cdb_text(std::span<const uint8_t> cdb, uint64_t len, TextBuffer& out);

}  // namespace ringscope::scsi
