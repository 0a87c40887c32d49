// The kernel files trace-cmd 3.4 stores with a recording, as v7 sections pointed to by their
// options: BTF_FILE (23, /sys/kernel/btf/vmlinux as it is: function arguments by type),
// MODULES_FILE (25, /proc/modules: where each module's symbols lie) and LAST_BOOT_INFO (24, a
// boot-mapped instance's last_boot_info: the previous boot's KASLR offset and module addresses,
// stored only when the buffer holds a previous boot's data). Files that are missing are left out.
// /sys and /proc are RINGSCOPE_SYSFS and RINGSCOPE_PROC when set (tests with fake folders).
#pragma once

#include <string>
#include <vector>

#include <ringscope/tracefs.hpp>

#include "framework/io/trace_dat_types.hpp"

namespace ringscope::capture {

std::string sysfs_root();
std::string proc_root();

// Appends the sections to meta.extra_sections; BUFFERS are the recorded ones, in file order.
void add_kernel_sections(io::TraceMetadata& meta, const std::vector<const tracefs::Instance*>& buffers);

}  // namespace ringscope::capture
