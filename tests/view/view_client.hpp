// The tests' side of `ringscope view`: the server as a child process on --port 0, plain HTTP GETs
// (Boost.Beast), and report's lines with their times (report -t, the same lines with nanoseconds).
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "../support/shell_command.hpp"

namespace ringscope::test {

inline std::string ringscope_bin() {
    return std::string(RINGSCOPE_BINARY_DIR) + "/ringscope";
}
inline std::string trace_path(const std::string& name) {
    return std::string(RINGSCOPE_TEST_DATA_DIR) + "/traces/" + name;
}

struct HttpAnswer {
    int status = 0;
    std::string content_type, body;
};

inline HttpAnswer http_get(uint16_t port, const std::string& target) {
    namespace beast = boost::beast;
    namespace http = beast::http;
    boost::asio::io_context io;
    boost::asio::ip::tcp::resolver resolver(io);
    beast::tcp_stream stream(io);
    stream.connect(resolver.resolve("127.0.0.1", std::to_string(port)));
    http::request<http::string_body> req(http::verb::get, target, 11);
    req.set(http::field::host, "127.0.0.1");
    http::write(stream, req);
    beast::flat_buffer buf;
    http::response_parser<http::string_body> res;
    res.body_limit(1u << 30);
    beast::error_code ec;
    http::read(stream, buf, res, ec);
    HttpAnswer a;
    if (ec) return a;
    a.status = static_cast<int>(res.get().result_int());
    a.content_type = std::string(res.get()[http::field::content_type]);
    a.body = res.get().body();
    return a;
}

// `ringscope view ARGS --port 0` as a child; port() once it printed its URL.
class ViewServer {
  public:
    explicit ViewServer(const std::vector<std::string>& args) {
        int out[2];
        if (pipe(out) != 0) return;
        pid_ = fork();
        if (pid_ == 0) {
            dup2(out[1], 1);
            close(out[0]);
            close(out[1]);
            std::vector<std::string> all{ringscope_bin(), "view"};
            all.insert(all.end(), args.begin(), args.end());
            std::vector<char*> argv;
            for (auto& a : all) argv.push_back(a.data());
            argv.push_back(nullptr);
            execv(argv[0], argv.data());
            _exit(127);
        }
        close(out[1]);
        std::FILE* f = fdopen(out[0], "r");
        char line[512];
        if (std::fgets(line, sizeof line, f)) {
            first_line_ = line;
            static const std::regex url(R"(serving http://127\.0\.0\.1:(\d+)/)");
            std::smatch m;
            if (std::regex_search(first_line_, m, url)) port_ = static_cast<uint16_t>(std::stoi(m[1]));
        }
        std::fclose(f);
    }
    ~ViewServer() { stop(); }
    uint16_t port() const { return port_; }
    const std::string& first_line() const { return first_line_; }
    // SIGTERM, then the exit code (-1: did not exit normally).
    int stop() {
        if (pid_ <= 0) return status_;
        kill(pid_, SIGTERM);
        int st = 0;
        waitpid(pid_, &st, 0);
        pid_ = -1;
        status_ = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        return status_;
    }

  private:
    pid_t pid_ = -1;
    uint16_t port_ = 0;
    int status_ = -1;
    std::string first_line_;
};

inline std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    std::string s;
    while (std::getline(in, s)) out.push_back(s);
    return out;
}

// report's lines (without the "cpus=N" head) and the time of each in ns: from `report -t`, whose
// lines are the same ones with nine decimals. A line without a time (a drop notice, a stack line)
// gets the time of the event it belongs to: the next one for a drop notice, else the one before.
struct ReportLines {
    std::vector<std::string> lines;
    std::vector<uint64_t> ts;
};

inline ReportLines report_lines(const std::string& file) {
    const auto plain =
        split_lines(run_shell("'" + ringscope_bin() + "' report '" + file + "' 2>/dev/null").out);
    const auto nsec =
        split_lines(run_shell("'" + ringscope_bin() + "' report -t '" + file + "' 2>/dev/null").out);
    ReportLines r;
    if (plain.size() != nsec.size() || plain.empty()) return r;
    static const std::regex time(R"(\]\s+(?:\S+\s+)?(\d+)\.(\d{9}):)");
    std::vector<int64_t> t(nsec.size(), -1);
    for (size_t i = 1; i < nsec.size(); ++i) {
        std::smatch m;
        if (std::regex_search(nsec[i], m, time)) t[i] = std::stoll(m[1]) * 1000000000LL + std::stoll(m[2]);
    }
    for (size_t i = 1; i < nsec.size(); ++i) {
        if (t[i] >= 0) continue;
        if (plain[i].rfind("CPU:", 0) == 0) {
            for (size_t j = i + 1; j < nsec.size(); ++j)
                if (t[j] >= 0 && nsec[j].rfind("CPU:", 0) != 0) {
                    t[i] = t[j];
                    break;
                }
        } else if (t[i - 1] >= 0) {
            t[i] = t[i - 1];
        }
    }
    for (size_t i = 1; i < plain.size(); ++i) {
        r.lines.push_back(plain[i]);
        r.ts.push_back(t[i] < 0 ? 0 : static_cast<uint64_t>(t[i]));
    }
    return r;
}

}  // namespace ringscope::test
