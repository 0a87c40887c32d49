#pragma once

#include <string>
#include <vector>

#include <ringscope/plugin.hpp>

namespace ringscope::sched {

// `ringscope sched ANALYSIS [options] FILE...`; returns 0, 1 (a file does not read), 2 (usage).
int run_sched_command(const std::vector<std::string>& args, CommandEnv& env);

}  // namespace ringscope::sched
