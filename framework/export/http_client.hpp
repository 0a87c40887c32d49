// ClickHouse's HTTP interface through libcurl: SQL statements and compressed INSERT bodies, with
// retries and exponential back-off when the server is unreachable, stalls, or answers 502/503/504 or
// a 500 that may pass (http_answer.hpp). Other answers (4xx, a 500 for a deterministic exception,
// 501, ...) and errors that another try cannot mend (a bad URL, refused credentials) fail at once. One client
// per thread (it owns a curl handle and reuses its connection).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include <ringscope/error.hpp>

#include "framework/export/clickhouse_url.hpp"

namespace ringscope::exporter {

struct RetryPolicy {
    int attempts = 6;  // tries per request, the first included
    std::chrono::milliseconds first_delay{250};
    std::chrono::milliseconds max_delay{8000};
    // An attempt fails when no byte moves for read_timeout (a server that accepts and then stalls),
    // or when it lasts longer than deadline in all.
    std::chrono::milliseconds read_timeout{60000};
    std::chrono::milliseconds deadline{600000};
};

struct Credentials {
    std::string user, password;  // empty user: ClickHouse's "default"
};

class HttpClient {
  public:
    // Called before each retry with a one-line reason ("HOST:PORT: connection refused; retry 2/5 in 0.5s").
    using RetryLog = std::function<void(const std::string&)>;

    static Expected<HttpClient> create(ClickHouseUrl url, Credentials credentials, RetryPolicy policy,
                                       RetryLog log);
    HttpClient(HttpClient&&) noexcept;
    HttpClient& operator=(HttpClient&&) noexcept;
    ~HttpClient();

    // Runs one SQL statement; the answer's body (TabSeparated for SELECTs).
    Expected<std::string> query(std::string_view sql);
    // A statement that answers one number (SELECT count() ...).
    Expected<uint64_t> query_count(std::string_view sql);

    // `INSERT INTO ... FORMAT F` with a body compressed by zlib (sent as Content-Encoding: deflate).
    // When an attempt fails after the body may have reached the server, `landed` is asked before
    // the next attempt: true means the rows are there and the insert is done (no duplicates).
    Status insert(std::string_view insert_sql, std::span<const uint8_t> deflated_body,
                  const std::function<Expected<bool>()>& landed);

    const ClickHouseUrl& url() const noexcept;

  private:
    struct Impl;
    explicit HttpClient(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace ringscope::exporter
