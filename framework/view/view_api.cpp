#include "framework/view/view_api.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>
#include <ringscope/filter.hpp>

#include "framework/view/assets.hpp"
#include "framework/view/process_summary.hpp"
#include "framework/view/sched_tracker.hpp"
#include "framework/view/view_marks.hpp"

namespace ringscope::view {
namespace {

using json = nlohmann::json;

// A parameter that does not parse: HTTP 400 with its message.
struct BadRequest {
    std::string message;
};

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

std::string url_decode(std::string_view s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '+') {
            out += ' ';
        } else if (s[i] == '%') {
            const int hi = i + 2 < s.size() ? hex_value(s[i + 1]) : -1;
            const int lo = hi >= 0 ? hex_value(s[i + 2]) : -1;
            if (lo < 0) throw BadRequest{"bad %-escape in the query"};
            out += static_cast<char>(hi * 16 + lo);
            i += 2;
        } else {
            out += s[i];
        }
    }
    return out;
}

class Params {
  public:
    explicit Params(std::string_view query) {
        while (!query.empty()) {
            const size_t amp = query.find('&');
            std::string_view kv = query.substr(0, amp);
            query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
            if (kv.empty()) continue;
            const size_t eq = kv.find('=');
            std::string key = url_decode(kv.substr(0, eq));
            if (values_.count(key)) throw BadRequest{"parameter '" + key + "' given twice"};
            values_[key] = eq == std::string_view::npos ? std::string() : url_decode(kv.substr(eq + 1));
        }
    }
    const std::string* get(const std::string& key) const {
        auto it = values_.find(key);
        return it == values_.end() ? nullptr : &it->second;
    }
    uint64_t number(const std::string& key, uint64_t fallback, uint64_t max = UINT64_MAX) const {
        const std::string* v = get(key);
        if (!v) return fallback;
        uint64_t n = 0;
        auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
        if (v->empty() || ec != std::errc() || p != v->data() + v->size())
            throw BadRequest{"'" + key + "' is not a non-negative integer: '" + *v + "'"};
        if (n > max) throw BadRequest{"'" + key + "' is above its limit " + std::to_string(max)};
        return n;
    }
    std::vector<int> list(const std::string& key) const {
        std::vector<int> out;
        const std::string* v = get(key);
        if (!v || v->empty()) return out;
        std::string_view s = *v;
        while (!s.empty()) {
            const size_t c = s.find(',');
            std::string_view item = s.substr(0, c);
            s = c == std::string_view::npos ? std::string_view() : s.substr(c + 1);
            int n = 0;
            auto [p, ec] = std::from_chars(item.data(), item.data() + item.size(), n);
            if (item.empty() || ec != std::errc() || p != item.data() + item.size() || n < 0)
                throw BadRequest{"'" + key + "' is not a list of numbers: '" + *v + "'"};
            if (out.size() >= 100000) throw BadRequest{"'" + key + "' lists too many numbers"};
            out.push_back(n);
        }
        return out;
    }

  private:
    std::map<std::string, std::string> values_;
};

struct Range {
    uint64_t from, to;
    uint32_t width;
    bool outside;  // the range asked misses the trace (from, to: the nearest edge)
};

// The range asked, within the trace's span (so no pixel arithmetic overflows).
Range range_of(const Params& p, const ViewIndex& ix) {
    const uint64_t from = p.number("from", ix.start()), to = p.number("to", ix.end());
    const auto width = static_cast<uint32_t>(p.number("width", 1000, kMaxWidth));
    if (from > to) throw BadRequest{"'from' is after 'to'"};
    if (width == 0) throw BadRequest{"'width' must be at least 1"};
    return {std::clamp(from, ix.start(), ix.end()), std::clamp(to, ix.start(), ix.end()), width,
            from > ix.end() || to < ix.start()};
}

// Text from traces may hold bytes that are not UTF-8: they become U+FFFD rather than an exception.
std::string dump(const json& j) {
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

Response json_response(int status, std::string body) {
    return {status, "application/json", std::move(body)};
}
Response error_response(int status, const std::string& message) {
    return json_response(status, dump(json{{"error", message}}));
}

std::string_view content_type_of(std::string_view name) {
    auto ends = [&](std::string_view ext) {
        return name.size() >= ext.size() && name.substr(name.size() - ext.size()) == ext;
    };
    if (ends(".html")) return "text/html; charset=utf-8";
    if (ends(".js") || ends(".mjs")) return "text/javascript; charset=utf-8";
    if (ends(".css")) return "text/css; charset=utf-8";
    if (ends(".svg")) return "image/svg+xml";
    if (ends(".png")) return "image/png";
    if (ends(".json")) return "application/json";
    return "application/octet-stream";
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// A search text that is a -F filter rather than a name: it has an operator in it.
bool looks_like_filter(std::string_view q) {
    for (std::string_view op : {"==", "!=", "<", ">", "~", "&&", "||", ":"})
        if (q.find(op) != std::string_view::npos) return true;
    return false;
}

}  // namespace

std::string ViewApi::meta() {
    json m;
    m["files"] = json::array();
    for (size_t i = 0; i < files_.size(); ++i)
        m["files"].push_back({{"path", files_[i]}, {"machine", i == 0 ? "host" : "guest"}});
    m["start"] = index_.start();
    m["end"] = index_.end();
    m["total"] = index_.total_events();
    const ViewIndex::Sizes z = index_.sizes();
    m["index"] = {{"cpu_bytes", z.cpu_bytes},
                  {"task_bytes", z.task_bytes},
                  {"tasks", z.tasks},
                  {"task_entries", z.task_entries},
                  {"dropped_bytes", z.dropped_bytes}};
    json cpus = json::array();
    for (size_t l = 0; l < index_.lanes().size(); ++l) {
        const CpuLane& lane = index_.lanes()[l];
        // An instance's lanes are named as `report` prefixes its lines: "NAME/CPU 3".
        const std::string label = (lane.file ? "guest " + std::to_string(lane.file) + " " : std::string()) +
                                  (lane.buffer ? lane.instance + "/" : std::string()) +
                                  (lane.file ? "vCPU " : "CPU ") + std::to_string(lane.cpu);
        json cpu = {{"lane", index_.lane_name(l)}, {"file", lane.file}, {"cpu", lane.cpu}, {"label", label}};
        if (lane.buffer) cpu["instance"] = lane.instance;
        cpus.push_back(std::move(cpu));
    }
    m["cpus"] = std::move(cpus);
    // Each file's tasks grouped by process, the host's first, both in pid order; a process is
    // named by its leader (or, when the leader never ran in the trace, by its first thread). `id`:
    // the task's id in the other answers (a guest's pids are another machine's).
    std::map<int32_t, std::vector<int32_t>> groups;
    for (const auto& [id, t] : index_.tasks()) groups[index_.tgid(id)].push_back(id);
    json procs = json::array();
    for (const auto& [tgid, ids] : groups) {
        json threads = json::array();
        for (int32_t id : ids)
            threads.push_back({{"pid", task_pid(id)}, {"id", id}, {"comm", index_.comm(id)}});
        procs.push_back({{"tgid", task_pid(tgid)},
                         {"id", tgid},
                         {"file", task_file(tgid)},
                         {"comm", index_.comm(index_.tasks().count(tgid) ? tgid : ids.front())},
                         {"threads", std::move(threads)}});
    }
    m["processes"] = std::move(procs);
    json events = json::array();
    for (const auto& [name, n] : index_.event_counts()) events.push_back({{"name", name}, {"count", n}});
    m["events"] = std::move(events);
    json dropped = json::array();
    for (const auto& d : index_.dropped())
        dropped.push_back({{"lane", d.lane}, {"ts", d.ts}, {"count", d.count}});
    m["dropped"] = std::move(dropped);
    json guests = json::array();
    for (size_t i = 1; i < files_.size(); ++i) {
        json vcpus = json::object();
        if (marks_)
            if (auto it = marks_->vcpus().find(i); it != marks_->vcpus().end())
                for (const auto& [vcpu, pid] : it->second) vcpus[std::to_string(vcpu)] = pid;
        guests.push_back({{"file", i}, {"host_pid_of_vcpu", std::move(vcpus)}});
    }
    m["guests"] = std::move(guests);
    json totals = json::array();
    if (marks_)
        for (const auto& [key, n] : marks_->totals())
            totals.push_back(
                {{"kind", marks_->kinds()[key.first]}, {"label", marks_->text(key.second)}, {"count", n}});
    m["marks"] = std::move(totals);
    return dump(m);
}

std::string ViewApi::marks(uint64_t from, uint64_t to, uint32_t width) {
    json lanes = json::array(), tasks = json::array(), counts = json::array();
    if (marks_) {
        const ViewMarks& mk = *marks_;
        const ViewMarks::Answer a = mk.query(from, to, width);
        auto list = [&](const std::vector<MarkSpan>& spans) {
            json out = json::array();
            for (const MarkSpan& s : spans)
                out.push_back({s.mark.ts, mk.text(s.mark.label), mk.text(s.mark.detail), s.n});
            return out;
        };
        for (const auto& [lane, spans] : a.lanes)
            lanes.push_back({{"lane", index_.lane_name(lane)}, {"marks", list(spans)}});
        for (const auto& [pid, spans] : a.tasks) tasks.push_back({{"pid", pid}, {"marks", list(spans)}});
        for (const auto& [key, n] : a.counts)
            counts.push_back({{"kind", mk.kinds()[key.first]}, {"label", mk.text(key.second)}, {"count", n}});
    }
    return dump(json{{"from", from},
                     {"to", to},
                     {"complete", !marks_ || marks_->complete()},
                     {"counts", counts},
                     {"lanes", lanes},
                     {"tasks", tasks}});
}

Expected<std::string> ViewApi::cpus(uint64_t from, uint64_t to, uint32_t width) {
    auto slices = index_.cpu_slices(from, to, width);
    if (!slices) return slices.error();
    json lanes = json::array();
    for (size_t l = 0; l < slices->size(); ++l) {
        json s = json::array();
        for (const Span& sp : (*slices)[l]) s.push_back({sp.start, sp.end, sp.value, sp.n});
        json t = json::array();
        for (const auto& [at, n] : index_.cpu_ticks(l, from, to, width)) t.push_back({at, n});
        lanes.push_back({{"lane", index_.lane_name(l)}, {"slices", std::move(s)}, {"ticks", std::move(t)}});
    }
    return dump(json{
        {"from", from}, {"to", to}, {"exact", !index_.cpu_from_summary(from, to, width)}, {"lanes", lanes}});
}

Expected<std::string> ViewApi::tasks(uint64_t from, uint64_t to, uint32_t width,
                                     const std::vector<int>& pids) {
    std::vector<int> wanted = pids;
    if (wanted.empty())
        for (const auto& [pid, t] : index_.tasks()) wanted.push_back(pid);
    auto states = index_.task_states(wanted, from, to, width);
    if (!states) return states.error();
    json lanes = json::array();
    for (const auto& [id, spans] : *states) {
        json s = json::array();
        for (const Span& sp : spans)
            s.push_back(
                {sp.start, sp.end, std::string(1, state_letter(static_cast<TaskState>(sp.value))), sp.n});
        lanes.push_back({{"pid", task_pid(id)},
                         {"id", id},
                         {"file", task_file(id)},
                         {"tgid", task_pid(index_.tgid(id))},
                         {"comm", index_.comm(id)},
                         {"states", std::move(s)}});
    }
    return dump(json{{"from", from}, {"to", to}, {"lanes", lanes}});
}

Expected<std::string> ViewApi::processes(uint64_t from, uint64_t to, uint32_t width,
                                         const std::vector<int>& ids) {
    std::map<int32_t, std::vector<int32_t>> groups;
    for (const auto& [id, t] : index_.tasks()) groups[index_.tgid(id)].push_back(id);
    if (!ids.empty())
        std::erase_if(groups,
                      [&](const auto& g) { return std::find(ids.begin(), ids.end(), g.first) == ids.end(); });
    else
        std::erase_if(groups, [](const auto& g) { return g.second.size() < 2; });
    std::vector<int> wanted;
    for (const auto& [tgid, threads] : groups) wanted.insert(wanted.end(), threads.begin(), threads.end());
    // A thread counts as running in a pixel where it ran at all, not only where it ran most.
    auto states = index_.task_states(wanted, from, to, width, TaskState::running);
    if (!states) return states.error();
    json lanes = json::array();
    for (const auto& [tgid, threads] : groups) {
        std::vector<const std::vector<Span>*> spans;
        for (int32_t id : threads)
            if (auto it = states->find(id); it != states->end()) spans.push_back(&it->second);
        json running = json::array();
        for (const Span& s : running_union(spans)) running.push_back({s.start, s.end, s.value, s.n});
        lanes.push_back({{"id", tgid},
                         {"tgid", task_pid(tgid)},
                         {"file", task_file(tgid)},
                         {"threads", threads.size()},
                         {"running", std::move(running)}});
    }
    return dump(json{{"from", from}, {"to", to}, {"lanes", lanes}});
}

namespace {

// Per task in [FROM, TO]: run and wait time, wakeup latencies (decoded again: exact).
Expected<std::string> stats_of(ViewIndex& ix, uint64_t from, uint64_t to) {
    auto states = ix.task_stats(from, to);
    if (!states) return states.error();
    std::vector<std::pair<int32_t, TaskStats>> rows(states->begin(), states->end());
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
        return a.second.run != b.second.run ? a.second.run > b.second.run : a.first < b.first;
    });
    json tasks = json::array();
    for (const auto& [id, s] : rows) {
        tasks.push_back({{"pid", task_pid(id)},
                         {"id", id},
                         {"file", task_file(id)},
                         {"comm", ix.comm(id)},
                         {"run", s.run},
                         {"wait", s.wait},
                         {"wakeup_max", s.wakeup_max},
                         {"wakeup_avg", s.wakeups ? s.wakeup_sum / s.wakeups : 0},
                         {"wakeups", s.wakeups}});
    }
    return dump(json{{"from", from}, {"to", to}, {"tasks", tasks}});
}

// /api/search: tasks by comm or pid, events by name, or the events a -F filter matches.
std::string search_of(ViewIndex& ix, const std::string& q) {
    json matches = json::array();
    if (looks_like_filter(q)) {
        FilterSet f;
        const auto types = ix.set().file(0).types();
        if (Status st = f.add(q, false, types); !st) throw BadRequest{"filter: " + st.error().to_string()};
        auto found = ix.count_matching(f);
        if (!found) throw std::runtime_error(found.error().to_string());
        json m{{"kind", "filter"}, {"label", q}, {"count", found->count}};
        if (found->count) m["first"] = found->first;
        matches.push_back(std::move(m));
        return dump(json{{"matches", matches}});
    }
    const std::string needle = lower(q);
    int pid_asked = -1;
    std::from_chars(q.data(), q.data() + q.size(), pid_asked);
    for (const auto& [id, t] : ix.tasks()) {
        const std::string comm = ix.comm(id);
        const int32_t pid = task_pid(id);
        if (pid != pid_asked && lower(comm).find(needle) == std::string::npos) continue;
        uint64_t changes = 0;
        for (const auto& b : t.buckets) changes += b.changes;
        matches.push_back({{"kind", "task"},
                           {"label", comm + "-" + std::to_string(pid)},
                           {"pid", pid},
                           {"id", id},
                           {"file", task_file(id)},
                           {"first", ix.task_first_seen(id)},
                           {"count", changes}});
        if (matches.size() >= 1000) break;
    }
    for (const auto& [name, n] : ix.event_counts())
        if (lower(name).find(needle) != std::string::npos)
            matches.push_back(
                {{"kind", "event"}, {"label", name}, {"first", ix.event_first().at(name)}, {"count", n}});
    return dump(json{{"matches", matches}});
}

}  // namespace

Response ViewApi::handle(const std::string& target) {
    const size_t q = target.find('?');
    const std::string path = target.substr(0, q);
    const std::string_view query =
        q == std::string::npos ? std::string_view() : std::string_view(target).substr(q + 1);
    try {
        if (path == "/" || path == "/index.html" || path.rfind("/assets/", 0) == 0) {
            const std::string name = path == "/" ? "index.html" : path.substr(path.rfind('/') + 1);
            const Asset* a = find_asset(path == "/" || path == "/index.html" ? "index.html" : path.substr(8));
            if (!a) return error_response(404, "no asset " + name);
            return {200, std::string(content_type_of(a->name)), std::string(a->data)};
        }
        if (path.rfind("/api/", 0) != 0) return error_response(404, "no such path: " + path);
        const Params p(query);
        if (path == "/api/meta") return json_response(200, meta());
        if (path == "/api/cpus") {
            const Range r = range_of(p, index_);
            auto body = cpus(r.from, r.to, r.width);
            return body ? json_response(200, *body) : error_response(500, body.error().to_string());
        }
        if (path == "/api/tasks") {
            const Range r = range_of(p, index_);
            auto body = tasks(r.from, r.to, r.width, p.list("pids"));
            return body ? json_response(200, *body) : error_response(500, body.error().to_string());
        }
        if (path == "/api/processes") {
            const Range r = range_of(p, index_);
            auto body = processes(r.from, r.to, r.width, p.list("ids"));
            return body ? json_response(200, *body) : error_response(500, body.error().to_string());
        }
        if (path == "/api/marks") {
            const Range r = range_of(p, index_);
            return json_response(200, marks(r.from, r.to, r.width));
        }
        if (path == "/api/stats") {
            const Range r = range_of(p, index_);
            auto body = stats_of(index_, r.from, r.to);
            return body ? json_response(200, *body) : error_response(500, body.error().to_string());
        }
        if (path == "/api/events") {
            const Range r = range_of(p, index_);
            EventsQuery eq{r.from,
                           r.to,
                           static_cast<size_t>(p.number("limit", 1000, kMaxLimit)),
                           p.get("filter") ? *p.get("filter") : std::string(),
                           p.list("cpu"),
                           p.list("pid")};
            if (!eq.filter.empty()) {
                FilterSet check;
                const auto types = index_.set().file(0).types();
                if (Status st = check.add(eq.filter, false, types); !st)
                    return error_response(400, "filter: " + st.error().to_string());
            }
            if (r.outside) return json_response(200, R"({"lines":[],"total":0,"truncated":false})");
            auto ans = events_(eq);
            if (!ans) return error_response(500, ans.error().to_string());
            return json_response(
                200, dump(json{{"lines", ans->lines}, {"total", ans->total}, {"truncated", ans->truncated}}));
        }
        if (path == "/api/search") {
            const std::string* text = p.get("q");
            if (!text || text->empty()) throw BadRequest{"'q' is missing"};
            return json_response(200, search_of(index_, *text));
        }
        return error_response(404, "no such path: " + path);
    } catch (const BadRequest& e) {
        return error_response(400, e.message);
    } catch (const std::exception& e) {
        return error_response(500, e.what());
    }
}

}  // namespace ringscope::view
