// What `view` and `run`'s html output share: the viewer's one pass over trace.dat files (with the
// plugins' timeline annotators), its API, and the event lines of a range as `report` prints them
// (report's own code, run for the range into a pipe, on the files it opened for the first query:
// report_session.hpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <ringscope/error.hpp>

#include "framework/cli/cli_context.hpp"
#include "framework/cli/report_session.hpp"
#include "framework/view/view_api.hpp"
#include "framework/view/view_export.hpp"
#include "framework/view/view_marks.hpp"

namespace ringscope::cli {

class ViewSession {
  public:
    // FILES as report takes them (a host and its guests); REPORT_OPTS go before them in every
    // events query.
    static Expected<std::unique_ptr<ViewSession>> open(CliContext& ctx, std::vector<std::string> files,
                                                       std::vector<std::string> report_opts);

    view::ViewApi& api() { return *api_; }
    view::ViewIndex& index() { return *index_; }
    const view::EventsSource& events() const { return events_; }

    // The export's size cap: view::kExportCap, lowered by RINGSCOPE_VIEW_EXPORT_CAP (bytes; tests).
    static size_t export_cap();

  private:
    ViewSession() = default;

    std::vector<std::string> files_, report_opts_;
    std::unique_ptr<view::ViewMarks> marks_;
    std::unique_ptr<view::ViewIndex> index_;
    std::unique_ptr<ReportSession> reports_;  // report runs on files opened once
    view::EventsSource events_;
    std::unique_ptr<view::ViewApi> api_;
};

}  // namespace ringscope::cli
