// A trace file's "kernel" symbol resolver from its kallsyms and trace-cmd 3.4's MODULES_FILE and
// LAST_BOOT_INFO sections (framework/symbols/kernel_sections_resolver.hpp). trace-cmd 3.1.6 ignores
// those sections (`report --compat 3.1`: USE_SECTIONS false). A section that does not read or parse
// is left out with one diagnostic line naming the file and the section's offset; the trace reads on.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <ringscope/resolver.hpp>

#include "framework/io/trace_dat_reader.hpp"
#include "framework/symbols/lazy_kallsyms_resolver.hpp"

namespace ringscope::engine {

// KALLSYMS (may be null) as it is when the file has neither section or USE_SECTIONS is false; null
// when there is nothing to resolve with at all. DIAGNOSTICS gets one line per section not used.
std::shared_ptr<const SymbolResolver> kernel_resolver(
    const io::TraceDatReader& reader, const std::string& path,
    std::shared_ptr<const symbols::LazyKallsymsResolver> kallsyms, bool use_sections,
    std::vector<std::string>& diagnostics);

}  // namespace ringscope::engine
