#include "framework/export/http_answer.hpp"

#include <algorithm>
#include <array>
#include <charconv>

namespace ringscope::exporter {
namespace {

// ClickHouse's error codes (src/Common/ErrorCodes.cpp) for conditions that pass: load, limits of the
// moment, network and coordination trouble. Sorted for binary search.
constexpr std::array<int, 15> kTransientCodes = {
    159,  // TIMEOUT_EXCEEDED
    202,  // TOO_MANY_SIMULTANEOUS_QUERIES
    203,  // NO_FREE_CONNECTION
    209,  // SOCKET_TIMEOUT
    210,  // NETWORK_ERROR
    236,  // ABORTED
    241,  // MEMORY_LIMIT_EXCEEDED
    242,  // TABLE_IS_READ_ONLY
    252,  // TOO_MANY_PARTS
    285,  // TOO_FEW_LIVE_REPLICAS
    319,  // UNKNOWN_STATUS_OF_INSERT
    394,  // QUERY_WAS_CANCELLED
    425,  // SYSTEM_ERROR
    439,  // CANNOT_SCHEDULE_TASK
    999,  // KEEPER_EXCEPTION
};

}  // namespace

std::optional<int> clickhouse_exception_code(std::string_view body) {
    constexpr std::string_view prefix = "Code: ";
    if (!body.starts_with(prefix)) return std::nullopt;
    body.remove_prefix(prefix.size());
    int code = 0;
    auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), code);
    if (ec != std::errc() || end == body.data() + body.size() || *end != '.') return std::nullopt;
    return code;
}

bool answer_is_transient(long status, std::string_view body) {
    if (status == 502 || status == 503 || status == 504) return true;
    if (status != 500) return false;
    auto code = clickhouse_exception_code(body);
    return !code || std::binary_search(kTransientCodes.begin(), kTransientCodes.end(), *code);
}

}  // namespace ringscope::exporter
