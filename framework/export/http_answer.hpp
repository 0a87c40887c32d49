// Whether an HTTP answer from ClickHouse (or a proxy before it) is worth another try. ClickHouse
// answers 500 for most exceptions, the deterministic ones (a syntax error, a type mismatch, a table
// that does not exist) as well as the passing ones (memory limit, too many parts, a timeout); its body
// starts "Code: N. DB::Exception: ...", so the code decides. A 500 without a code (a proxy, a crash
// mid-answer) and 502/503/504 are retried; every other status is the request's own fault.
#pragma once

#include <optional>
#include <string_view>

namespace ringscope::exporter {

// N of a body starting "Code: N." (ClickHouse's exception text), if it does.
std::optional<int> clickhouse_exception_code(std::string_view body);

bool answer_is_transient(long status, std::string_view body);

}  // namespace ringscope::exporter
