#include "cli_process.hpp"

#include <sstream>

namespace kvm_test {

std::vector<std::string> split_lines(const std::string& s) {
    std::vector<std::string> out;
    std::istringstream in(s);
    std::string line;
    while (std::getline(in, line)) out.push_back(line);
    return out;
}

}  // namespace kvm_test
