#include "framework/engine/comm_table.hpp"

#include "framework/format/text_maps.hpp"

namespace ringscope::engine {

void CommTable::load_saved_cmdlines(std::string_view text) {
    // Same rules as libtraceevent's tep_parse_saved_cmdlines (first comm of a pid wins, stop at the
    // first line that does not parse); what parsed before a bad line is kept.
    format::CmdlineMap map;
    (void)format::parse_saved_cmdlines(text, map);
    for (auto& [pid, comm] : map) map_.try_emplace(pid, std::move(comm));
}

}  // namespace ringscope::engine
