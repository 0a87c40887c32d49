// `ringscope kvm exits [--format text|json|csv] [--top N] [--partial OUT] FILE [GUEST_FILE...]`: the
// kvm exits analysis over trace files (`--merge PARTIAL...`: over the partial results of earlier
// runs). With a host file and guest files from trace-cmd's agent, guest functions are named from
// the guests' own kallsyms; otherwise from the "guest" domain of the command's resolver service
// (`--guest-symbols`). Exit codes: 0 ok, 1 runtime error, 2 usage.
#pragma once

#include <string>
#include <vector>

#include <ringscope/plugin.hpp>

namespace ringscope::kvm {

int run_kvm_command(const std::vector<std::string>& args, CommandEnv& env);

}  // namespace ringscope::kvm
