// Where a command writes must not destroy what it reads. Before any work, a command that writes
// files (`run`'s outputs, `--partial`, `-o`) checks them all at once and refuses, with a one-line
// error naming the output (the command then exits with 2):
//   - an output that is one of the inputs (the same file whatever the path: device and inode);
//   - an output that exists and is not a regular file (a device node, a FIFO, a folder); the name
//     "-" means standard output and is allowed;
//   - two outputs that are the same file.
// The files themselves are then written under a temporary name and renamed when complete.
#pragma once

#include <string>
#include <vector>

#include <ringscope/error.hpp>

namespace ringscope {

// `outputs` and `inputs` are paths; an Errc::invalid_argument error for the first refused output.
Status check_outputs(const std::vector<std::string>& outputs, const std::vector<std::string>& inputs);

}  // namespace ringscope
