// `clickhouse://HOST:PORT/DB`: where `ringscope export` sends events (ClickHouse's HTTP interface).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <ringscope/error.hpp>

namespace ringscope::exporter {

struct ClickHouseUrl {
    std::string host;  // a name, an IPv4 address, or an IPv6 address without its brackets
    uint16_t port = 8123;
    std::string database = "default";

    // PORT defaults to 8123 and DB to "default". DB must be a plain identifier ([A-Za-z0-9_]):
    // it is written into SQL unquoted. Errc::invalid_argument names what is wrong.
    static Expected<ClickHouseUrl> parse(std::string_view text);

    // "http://HOST:PORT/" (IPv6 hosts in brackets).
    std::string http_base() const;
};

}  // namespace ringscope::exporter
