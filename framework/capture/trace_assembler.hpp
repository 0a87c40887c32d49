// Builds the trace.dat from the per-CPU raw files the readers wrote (whole sub-buffers each, as
// trace-cmd's trace.dat.cpuN), through io::TraceDatWriter.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <ringscope/error.hpp>

#include "framework/io/trace_dat_writer.hpp"

namespace ringscope::capture {

struct CpuDataFile {
    int cpu = 0;
    std::string path;
};

// One buffer's data: its name ("" = the top buffer), trace clock, sub-buffer size, CPU files.
struct BufferData {
    std::string name;
    std::string clock;
    uint32_t subbuf_size = 4096;
    std::vector<CpuDataFile> cpus;
};

struct AssembleSpec {
    std::string output;
    io::WriterConfig config;
    // In file order. When the first is an instance, an empty top buffer goes before it (as
    // trace-cmd extract -B and record -B write it).
    std::vector<BufferData> buffers;
    // Free each block of a CPU file once copied (punching a hole), so that the copy needs little
    // more room than the data itself: what lets a recording that filled the disk still be saved.
    bool release_copied = false;
    // Every CPU of the layout with no data, its file not read: record's OUTPUT.head, from which a
    // recording killed before it could write its file is assembled again (capture_recovery.hpp).
    bool layout_only = false;
};

// The spec of a capture's file: OUTPUT with COMPRESSION and the buffers' data.
AssembleSpec capture_spec(const std::string& output, io::Compression compression,
                          std::vector<BufferData> buffers);

// The scratch file of one CPU: OUTPUT.cpuN for the first buffer of a capture, OUTPUT.NAME.cpuN for
// the next ones (the instances after it).
std::string cpu_scratch_path(const std::string& output, size_t buffer_index, const std::string& name,
                             int cpu);

// Writes the file. A CPU file's trailing partial sub-buffer (a write cut by a full disk) is left
// out. Errors name the output (or CPU file) and the offset.
Status assemble_trace_dat(const AssembleSpec& spec, io::TraceMetadata metadata);

}  // namespace ringscope::capture
