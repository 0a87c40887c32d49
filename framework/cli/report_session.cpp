#include "framework/cli/report_session.hpp"

namespace ringscope::cli {

int ReportSession::run_to(const std::vector<std::string>& args, std::FILE* out, const ReportStart* start) {
    std::lock_guard lock(mutex_);
    ReportOptions o;
    if (int rc = parse_report_cli(ctx_, args, o); rc >= 0) return rc;
    std::vector<std::string> paths;
    for (const auto& in : o.inputs) paths.push_back(in.path);
    if (paths != paths_) kept_ = KeptInputs{};
    paths_ = std::move(paths);
    ReportRun run(ctx_, std::move(o), out, start, &kept_);
    const int rc = run.run();
    // A run that stopped before its files were set up leaves nothing half-opened for the next.
    if (!kept_.ready) kept_ = KeptInputs{};
    return rc;
}

}  // namespace ringscope::cli
