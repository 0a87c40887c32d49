#pragma once

#include <string>
#include <vector>

#include <ringscope/plugin.hpp>

namespace ringscope::sched {

// `ringscope sched ANALYSIS [options] FILE...` (`--partial OUT`: write the mergeable state;
// `--merge PARTIAL...`: the merge of partial results); returns 0, 1 (a file does not read), 2 (usage).
int run_sched_command(const std::vector<std::string>& args, CommandEnv& env);

}  // namespace ringscope::sched
