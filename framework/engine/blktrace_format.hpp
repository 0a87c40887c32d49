// trace-cmd's blktrace event: the kernel's blk tracer writes TRACE_BLK records into the ftrace
// buffer but exports no format for them, so libtracecmd (trace-blk-hack.c, every release from 1.0
// to 3.4) makes one up when it opens a file: "ftrace:blktrace", its ID one past the ftrace event it
// follows in the kernel's enum trace_type, its fields those of struct blk_io_trace after the common
// header, printed as "%d" of `pid`. trace-cmd's filters (-F, --pid, -T) and printing see it as
// any other event; ringscope declares the same format so that they do here too.
#pragma once

#include <optional>
#include <string>

namespace ringscope::format {
class FormatCatalog;
}

namespace ringscope::engine {

// The format text libtracecmd adds for the trace's ftrace events, or nothing where it adds none:
// no ftrace "power", "kmem_free" or "user_stack" event to place the ID after (tried in that
// order, as kernels moved TRACE_BLK), or that event's common fields are not the layout the
// record assumes. Also nothing when a format of the file already has the ID (ringscope keeps the
// kernel's own there).
std::optional<std::string> blktrace_format(const format::FormatCatalog& formats);

}  // namespace ringscope::engine
