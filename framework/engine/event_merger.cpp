#include "framework/engine/event_merger.hpp"

#include "framework/engine/trace_file.hpp"

namespace ringscope::engine {

Status EventMerger::status() const {
    for (const auto& s : sources_) {
        if (s.stream.status()) continue;
        Error e = s.stream.status().error();
        if (s.file) e.in_file(s.file->path());
        return e;
    }
    return Status::success();
}

}  // namespace ringscope::engine
