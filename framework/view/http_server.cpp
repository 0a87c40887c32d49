#include "framework/view/http_server.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace ringscope::view {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

// One connection: read a request, answer it, again while the client keeps it alive.
class Session : public std::enable_shared_from_this<Session> {
  public:
    Session(tcp::socket socket, const HttpServer::Handler& handler)
        : stream_(std::move(socket)), handler_(handler) {}

    void start() { read(); }

  private:
    void read() {
        parser_.emplace();
        parser_->header_limit(static_cast<uint32_t>(kMaxRequestBytes));
        parser_->body_limit(kMaxRequestBytes);
        stream_.expires_after(std::chrono::seconds(60));
        http::async_read(stream_, buffer_, *parser_,
                         [self = shared_from_this()](beast::error_code ec, size_t) { self->on_read(ec); });
    }

    void on_read(beast::error_code ec) {
        if (ec == http::error::end_of_stream || ec == beast::error::timeout || ec == asio::error::eof) {
            close();
            return;
        }
        if (ec) {  // too large or malformed: a 400 (or 413), then the connection closes
            const bool too_big = ec == http::error::header_limit || ec == http::error::body_limit ||
                                 ec == http::error::buffer_overflow;
            answer(Response{too_big ? 413 : 400, "application/json",
                            too_big ? "{\"error\":\"request too large\"}" : "{\"error\":\"bad request\"}"},
                   false, 11);
            return;
        }
        const auto& req = parser_->get();
        Response r;
        if (req.method() != http::verb::get && req.method() != http::verb::head)
            r = Response{405, "application/json", "{\"error\":\"only GET\"}"};
        else
            r = handler_(std::string(req.target()));
        if (req.method() == http::verb::head) r.body.clear();
        answer(std::move(r), req.keep_alive(), req.version());
    }

    void answer(Response r, bool keep_alive, unsigned version) {
        auto res =
            std::make_shared<http::response<http::string_body>>(static_cast<http::status>(r.status), version);
        res->set(http::field::server, "ringscope view");
        res->set(http::field::content_type, r.content_type);
        res->set(http::field::cache_control, "no-store");
        res->keep_alive(keep_alive);
        res->body() = std::move(r.body);
        res->prepare_payload();
        http::async_write(stream_, *res, [self = shared_from_this(), res](beast::error_code ec, size_t) {
            if (ec || !res->keep_alive()) {
                self->close();
                return;
            }
            self->read();
        });
    }

    void close() {
        beast::error_code ignored;
        stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    }

    beast::tcp_stream stream_;
    beast::flat_buffer buffer_{8192};
    std::optional<http::request_parser<http::string_body>> parser_;
    const HttpServer::Handler& handler_;
};

}  // namespace

struct HttpServer::Impl {
    asio::io_context io{1};
    tcp::acceptor acceptor{io};
    Handler handler;

    void accept() {
        acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
            if (ec == asio::error::operation_aborted) return;
            if (!ec) std::make_shared<Session>(std::move(socket), handler)->start();
            accept();
        });
    }
};

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpServer::~HttpServer() = default;

Expected<std::unique_ptr<HttpServer>> HttpServer::listen(const std::string& address, uint16_t port,
                                                         Handler handler) {
    auto impl = std::make_unique<Impl>();
    impl->handler = std::move(handler);
    beast::error_code ec;
    const auto addr = asio::ip::make_address(address, ec);
    if (ec) return Error(Errc::invalid_argument, "--bind " + address + ": not an IP address");
    const tcp::endpoint ep(addr, port);
    auto fail = [&](const char* what) {
        const std::string where = address + ":" + std::to_string(port);
        if (ec == asio::error::address_in_use)
            return Error(Errc::io, where + ": the port is in use (--port 0 picks a free one)");
        return Error(Errc::io, where + ": " + what + ": " + ec.message());
    };
    impl->acceptor.open(ep.protocol(), ec);
    if (ec) return fail("socket");
    impl->acceptor.set_option(asio::socket_base::reuse_address(true), ec);
    impl->acceptor.bind(ep, ec);
    if (ec) return fail("bind");
    impl->acceptor.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) return fail("listen");
    return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

uint16_t HttpServer::port() const noexcept {
    beast::error_code ec;
    const auto ep = impl_->acceptor.local_endpoint(ec);
    return ec ? 0 : ep.port();
}

void HttpServer::run(bool signals) {
    std::optional<asio::signal_set> sigs;
    if (signals) {
        sigs.emplace(impl_->io, SIGINT, SIGTERM);
        sigs->async_wait([this](beast::error_code ec, int) {
            if (!ec) stop();
        });
    }
    impl_->accept();
    impl_->io.run();
}

void HttpServer::stop() {
    asio::post(impl_->io, [this] {
        beast::error_code ignored;
        impl_->acceptor.close(ignored);
        impl_->io.stop();
    });
}

}  // namespace ringscope::view
