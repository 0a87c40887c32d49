// `ipt.calls`, an analysis of `ringscope run` over the instruction flow's events (ipt:call and
// ipt:return of an Intel PT input with its code, flow_events.hpp): per function, the calls into it
// and the returns out of it that `ipt calls` prints (its `name() {` and `} /* name */` lines), the
// deepest call and the decode errors the flow met.
#pragma once

#include <ringscope/analysis.hpp>

namespace ringscope::ipt {

AnalysisSpec calls_analysis_spec();

}  // namespace ringscope::ipt
