#include "framework/export/http_client.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "framework/export/http_answer.hpp"
#include "framework/export/lib_curl.hpp"

namespace ringscope::exporter {
namespace {

size_t collect(char* data, size_t size, size_t n, void* user) {
    static_cast<std::string*>(user)->append(data, size * n);
    return size * n;
}

// One attempt's outcome: what failed and whether trying again can help.
struct Attempt {
    bool ok = false;
    bool retryable = false;
    bool may_have_landed = false;  // the server may have acted on the request before it failed
    std::string message;
    std::string body;
};

// Transfer errors no retry mends.
bool permanent_curl_error(CURLcode rc) {
    switch (rc) {
        case CURLE_UNSUPPORTED_PROTOCOL:
        case CURLE_URL_MALFORMAT:
        case CURLE_NOT_BUILT_IN:
        case CURLE_LOGIN_DENIED:
        case CURLE_TOO_MANY_REDIRECTS:
        case CURLE_FILESIZE_EXCEEDED:
        case CURLE_OUT_OF_MEMORY:
            return true;
        default:
            return false;
    }
}

// Ends a transfer in which no byte moved for `limit` (curl calls this about once a second).
struct Stall {
    std::chrono::milliseconds limit;
    curl_off_t down = -1, up = -1;
    std::chrono::steady_clock::time_point since = std::chrono::steady_clock::now();
    bool stalled = false;
};

int on_progress(void* user, curl_off_t, curl_off_t down, curl_off_t, curl_off_t up) {
    auto& s = *static_cast<Stall*>(user);
    const auto now = std::chrono::steady_clock::now();
    if (down != s.down || up != s.up) {
        s.down = down;
        s.up = up;
        s.since = now;
        return 0;
    }
    s.stalled = now - s.since >= s.limit;
    return s.stalled ? 1 : 0;
}

std::string ms_text(std::chrono::milliseconds ms) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g s", static_cast<double>(ms.count()) / 1000);
    return buf;
}

std::string first_line(std::string s) {
    size_t nl = s.find('\n');
    if (nl != std::string::npos) s.resize(nl);
    return s;
}

}  // namespace

struct HttpClient::Impl {
    ClickHouseUrl url;
    Credentials credentials;
    RetryPolicy policy;
    RetryLog log;
    const LibCurl* lib = nullptr;
    CURL* curl = nullptr;

    ~Impl() {
        if (curl) lib->easy_cleanup(curl);
    }

    std::string where() const { return url.http_base().substr(7, url.http_base().size() - 8); }

    Attempt post(const std::string& target, std::span<const uint8_t> body, bool deflated) {
        Attempt a;
        lib->easy_reset(curl);
        lib->easy_setopt(curl, CURLOPT_URL, target.c_str());
        lib->easy_setopt(curl, CURLOPT_POST, 1L);
        lib->easy_setopt(curl, CURLOPT_POSTFIELDS, reinterpret_cast<const char*>(body.data()));
        lib->easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
        lib->easy_setopt(curl, CURLOPT_WRITEFUNCTION, &collect);
        lib->easy_setopt(curl, CURLOPT_WRITEDATA, &a.body);
        lib->easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
        lib->easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 10L);
        // A server that accepts the connection and then says nothing: no byte either way for
        // read_timeout ends the attempt (curl's LOW_SPEED_TIME averages over ~6 s of the upload
        // before it, hence a callback), and so does the deadline.
        Stall stall{policy.read_timeout};
        lib->easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, &on_progress);
        lib->easy_setopt(curl, CURLOPT_XFERINFODATA, &stall);
        lib->easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
        lib->easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(policy.deadline.count()));
        if (!credentials.user.empty()) {
            lib->easy_setopt(curl, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
            lib->easy_setopt(curl, CURLOPT_USERNAME, credentials.user.c_str());
            lib->easy_setopt(curl, CURLOPT_PASSWORD, credentials.password.c_str());
        }
        curl_slist* headers = nullptr;
        headers = lib->slist_append(headers, "Expect:");  // no 100-continue round trip
        if (deflated) headers = lib->slist_append(headers, "Content-Encoding: deflate");
        lib->easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
        CURLcode rc = lib->easy_perform(curl);
        lib->slist_free_all(headers);
        if (rc != CURLE_OK) {
            a.retryable = !permanent_curl_error(rc);
            // Refused or unresolved: nothing was sent. Anything else may have delivered the body.
            a.may_have_landed = rc != CURLE_COULDNT_CONNECT && rc != CURLE_COULDNT_RESOLVE_HOST;
            a.message = where() + ": " + lib->easy_strerror(rc);
            if (rc == CURLE_ABORTED_BY_CALLBACK && stall.stalled)
                a.message = where() + ": no byte from the server for " + ms_text(policy.read_timeout) +
                            " (--read-timeout)";
            else if (rc == CURLE_OPERATION_TIMEDOUT)
                a.message += " (the request lasted over " + ms_text(policy.deadline) + ", --deadline)";
            return a;
        }
        long status = 0;
        lib->easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
        if (status == 200) {
            a.ok = true;
            return a;
        }
        a.retryable = answer_is_transient(status, a.body);
        a.may_have_landed = status >= 500;
        a.message = where() + ": HTTP " + std::to_string(status) + ": " + first_line(a.body);
        return a;
    }

    // Runs ATTEMPT until it succeeds, fails for good, or the tries are used up.
    Expected<std::string> with_retries(const std::function<Attempt()>& attempt,
                                       const std::function<Expected<bool>()>& landed) {
        auto delay = policy.first_delay;
        for (int n = 1;; ++n) {
            Attempt a = attempt();
            if (a.ok) return std::move(a.body);
            if (!a.retryable || n >= policy.attempts) {
                std::string m = a.message;
                if (a.retryable)
                    m += " (gave up after " + std::to_string(n) + " attempts)";
                else
                    m += " (not retried: another try would get the same answer)";
                return Error(Errc::io, m);
            }
            if (log)
                log(a.message + "; retry " + std::to_string(n) + "/" + std::to_string(policy.attempts - 1) +
                    " in " + std::to_string(delay.count()) + " ms");
            std::this_thread::sleep_for(delay);
            delay = std::min(delay * 2, policy.max_delay);
            if (a.may_have_landed && landed) {
                // landed() queries through this client, with retries of its own.
                auto there = landed();
                if (!there)
                    return Error(Errc::io, there.error().message() + " (checking whether a batch landed)");
                if (*there) return std::string();
            }
        }
    }
};

HttpClient::HttpClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpClient::HttpClient(HttpClient&&) noexcept = default;
HttpClient& HttpClient::operator=(HttpClient&&) noexcept = default;
HttpClient::~HttpClient() = default;

Expected<HttpClient> HttpClient::create(ClickHouseUrl url, Credentials credentials, RetryPolicy policy,
                                        RetryLog log) {
    auto lib = LibCurl::get();
    if (!lib) return std::move(lib).error();
    auto impl = std::make_unique<Impl>();
    impl->lib = *lib;
    impl->curl = impl->lib->easy_init();
    if (!impl->curl) return Error(Errc::io, "curl_easy_init failed");
    impl->url = std::move(url);
    impl->credentials = std::move(credentials);
    impl->policy = policy;
    impl->log = std::move(log);
    return HttpClient(std::move(impl));
}

const ClickHouseUrl& HttpClient::url() const noexcept {
    return impl_->url;
}

Expected<std::string> HttpClient::query(std::string_view sql) {
    const std::string target = impl_->url.http_base();
    std::span<const uint8_t> body(reinterpret_cast<const uint8_t*>(sql.data()), sql.size());
    // Statements are not retried on "may have landed": those we send (CREATE ... IF NOT EXISTS,
    // DROP PARTITION, SELECT) give the same result when run twice.
    return impl_->with_retries([&] { return impl_->post(target, body, false); }, nullptr);
}

Expected<uint64_t> HttpClient::query_count(std::string_view sql) {
    auto answer = query(sql);
    if (!answer) return std::move(answer).error();
    char* end = nullptr;
    const uint64_t n = std::strtoull(answer->c_str(), &end, 10);
    if (end == answer->c_str() || (*end != '\n' && *end != '\0'))
        return Error(Errc::corrupt, impl_->where() + ": unexpected answer '" + first_line(*answer) +
                                        "' to: " + std::string(sql));
    return n;
}

Status HttpClient::insert(std::string_view insert_sql, std::span<const uint8_t> deflated_body,
                          const std::function<Expected<bool>()>& landed) {
    char* escaped =
        impl_->lib->easy_escape(impl_->curl, insert_sql.data(), static_cast<int>(insert_sql.size()));
    if (!escaped) return Error(Errc::io, "curl_easy_escape failed");
    const std::string target = impl_->url.http_base() + "?query=" + escaped;
    impl_->lib->free(escaped);
    auto r = impl_->with_retries([&] { return impl_->post(target, deflated_body, true); }, landed);
    if (!r) return std::move(r).error();
    return Status::success();
}

}  // namespace ringscope::exporter
