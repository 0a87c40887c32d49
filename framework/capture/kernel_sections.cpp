#include "framework/capture/kernel_sections.hpp"

#include <cstdlib>

#include "framework/tracefs/file_io.hpp"

namespace ringscope::capture {

namespace {

std::string root_from(const char* env, const char* fallback) {
    const char* v = std::getenv(env);
    return v && *v ? v : fallback;
}

// The kernel writes "# Current" (older: "Offset: current") while the buffer holds this boot's
// data: nothing to relocate then.
bool is_previous_boot(const std::string& text) {
    return !text.empty() && text.find("urrent") == std::string::npos;
}

}  // namespace

std::string sysfs_root() {
    return root_from("RINGSCOPE_SYSFS", "/sys");
}

std::string proc_root() {
    return root_from("RINGSCOPE_PROC", "/proc");
}

void add_kernel_sections(io::TraceMetadata& meta, const std::vector<const tracefs::Instance*>& buffers) {
    if (auto btf = tracefs::read_text_file(sysfs_root() + "/kernel/btf/vmlinux"); btf && !btf->empty())
        meta.extra_sections.push_back({io::OptionId::btf_file, "BTF", std::move(*btf)});
    for (const tracefs::Instance* in : buffers) {
        if (in->is_top()) continue;  // only instances are boot-mapped
        if (auto info = tracefs::read_text_file(in->path("last_boot_info")); info && is_previous_boot(*info))
            meta.extra_sections.push_back({io::OptionId::last_boot_info, "last boot info", std::move(*info)});
    }
    if (auto mods = tracefs::read_text_file(proc_root() + "/modules"); mods && !mods->empty())
        meta.extra_sections.push_back({io::OptionId::modules_file, "modules", std::move(*mods)});
}

}  // namespace ringscope::capture
