// A small HTTP/1.1 server (Boost.Beast over Asio, one thread): GET requests to a handler, requests
// bounded in size, answers as the handler makes them. Stops on stop() or SIGINT/SIGTERM.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <ringscope/error.hpp>

#include "framework/view/view_api.hpp"

namespace ringscope::view {

inline constexpr size_t kMaxRequestBytes = 64 * 1024;  // header and body

class HttpServer {
  public:
    using Handler = std::function<Response(const std::string& target)>;

    // Listens on ADDRESS:PORT (0: a free port). An address that does not parse or a port in use is
    // an error that says so.
    static Expected<std::unique_ptr<HttpServer>> listen(const std::string& address, uint16_t port,
                                                        Handler handler);
    ~HttpServer();

    uint16_t port() const noexcept;
    // Serves until stop() (from any thread) or, with SIGNALS, SIGINT/SIGTERM.
    void run(bool signals);
    void stop();

  private:
    struct Impl;
    explicit HttpServer(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace ringscope::view
