// `view`'s report runs on trace.dat files opened once: the first run opens them as `report` does
// with its options, the next ones reuse them with what they parsed on the way (formats, symbols,
// cmdlines), so a query costs its range rather than the open. Between runs only --from, --to, -F,
// --cpu and --pid may change (none of them changes how a file opens); runs are serialised.
#pragma once

#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "framework/cli/report_run.hpp"

namespace ringscope::cli {

class ReportSession {
  public:
    explicit ReportSession(CliContext& ctx) : ctx_(ctx) {}
    // `report ARGS`, its text into OUT (see run_report_to).
    int run_to(const std::vector<std::string>& args, std::FILE* out, const ReportStart* start);

  private:
    CliContext& ctx_;
    std::mutex mutex_;
    KeptInputs kept_;
    std::vector<std::string> paths_;  // the inputs kept_ holds
};

}  // namespace ringscope::cli
