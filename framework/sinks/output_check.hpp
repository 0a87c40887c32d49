// check_outputs() (ringscope/output_check.hpp) for commands that report every refused output with
// its own position: (index in `outputs`, error) for each.
#pragma once

#include <utility>
#include <vector>

#include <ringscope/output_check.hpp>

namespace ringscope::sinks {

std::vector<std::pair<size_t, Error>> output_problems(const std::vector<std::string>& outputs,
                                                      const std::vector<std::string>& inputs);

}  // namespace ringscope::sinks
