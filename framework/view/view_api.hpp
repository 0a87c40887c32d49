// The viewer's HTTP API (README.md): a request target in, a status, a content type and a body out.
// Transport-free, so the tests and `view --export` use it without a socket.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <ringscope/error.hpp>

#include "framework/view/view_index.hpp"

namespace ringscope::view {

// What /api/events asks of the report text.
struct EventsQuery {
    uint64_t from = 0, to = 0;
    size_t limit = 1000;
    std::string filter;           // -F text ("" none)
    std::vector<int> cpus, pids;  // empty: all
};

struct EventsAnswer {
    std::vector<std::string> lines;
    std::vector<uint64_t> ts;  // per line, when known (parsed from its time text)
    uint64_t total = 0;
    bool truncated = false;
};

// Prints the events of a query as `report` does (the CLI provides it: it owns the report options).
using EventsSource = std::function<Expected<EventsAnswer>(const EventsQuery&)>;

struct Response {
    int status = 200;
    std::string content_type = "application/json";
    std::string body;
};

inline constexpr uint32_t kMaxWidth = 20000;
inline constexpr size_t kMaxLimit = 100000;

class ViewApi {
  public:
    ViewApi(ViewIndex& index, std::vector<std::string> files, EventsSource events)
        : index_(index), files_(std::move(files)), events_(std::move(events)) {}

    // TARGET: "/api/cpus?from=1&to=2&width=3", "/", "/assets/app.js".
    Response handle(const std::string& target);

    // The JSON bodies (also what --export embeds).
    // The plugins' timeline marks and vCPU threads (optional; /api/marks answers empty without).
    void set_marks(const class ViewMarks* marks) { marks_ = marks; }

    std::string meta();
    Expected<std::string> cpus(uint64_t from, uint64_t to, uint32_t width);
    Expected<std::string> tasks(uint64_t from, uint64_t to, uint32_t width, const std::vector<int>& pids);
    std::string marks(uint64_t from, uint64_t to, uint32_t width);
    // The process headers' lanes (process_summary.hpp) of processes IDS (ids as /api/meta's), every
    // process of more than one thread when empty.
    Expected<std::string> processes(uint64_t from, uint64_t to, uint32_t width, const std::vector<int>& ids);

  private:
    ViewIndex& index_;
    std::vector<std::string> files_;
    EventsSource events_;
    const ViewMarks* marks_ = nullptr;
};

}  // namespace ringscope::view
