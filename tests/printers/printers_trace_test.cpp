// Real records: every hrtimer, kmem and raw_data event of the committed traces printed by the
// plugins, against the lines `trace-cmd report` printed for them (tests/data/printers/traces/,
// made by make-trace-lines.py), per CPU in order.
#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <sstream>

#include <ringscope/event.hpp>

#include "framework/engine/cpu_stream.hpp"
#include "framework/engine/trace_file.hpp"
#include "printers_test_support.hpp"

using namespace printers_test;

namespace {

class FilePrintContext final : public ringscope::PrintContext {
  public:
    explicit FilePrintContext(ringscope::engine::TraceFile& f) : f_(f) {}
    void print_default(const ringscope::Event& ev, ringscope::TextBuffer& out) override {
        f_.formats().print_info(ev, out);
    }
    void print_field(const ringscope::Event&, std::string_view, ringscope::TextBuffer&) override {}
    void register_comm(int pid, std::string_view comm) override { f_.register_comm(pid, comm); }

  private:
    ringscope::engine::TraceFile& f_;
};

void check_trace(const std::string& name) {
    const std::string dat = data_dir() + "/traces/" + name + ".dat";
    // Expected: per CPU, (event, info) in report order.
    std::map<int, std::deque<std::pair<std::string, std::string>>> want;
    size_t total = 0;
    std::istringstream lines(read_file(data_dir() + "/printers/traces/" + name + ".lines"));
    for (std::string line; std::getline(lines, line);) {
        const size_t t1 = line.find('\t'), t2 = line.find('\t', t1 + 1);
        ASSERT_NE(t2, std::string::npos) << line;
        want[std::stoi(line.substr(0, t1))].emplace_back(line.substr(t1 + 1, t2 - t1 - 1),
                                                         line.substr(t2 + 1));
        ++total;
    }
    ASSERT_GT(total, 0u);

    auto file = ringscope::engine::TraceFile::open(dat, {});
    ASSERT_TRUE(file) << file.error().to_string();
    auto streams = (*file)->open_streams(0);
    ASSERT_TRUE(streams) << streams.error().to_string();
    PrinterSet set;
    FilePrintContext pc(**file);
    size_t seen = 0, same = 0;
    for (auto& s : *streams) {
        auto& queue = want[s.cpu()];
        for (const ringscope::engine::Record* rec = s.peek(); rec; s.advance(), rec = s.peek()) {
            const ringscope::EventType* t = (*file)->type_of(rec->data, rec->size);
            if (!t || !set.handler_for(*t)) continue;
            ringscope::Event ev(t, file->get(), {rec->data, rec->size}, rec->ts, rec->cpu);
            ringscope::TextBuffer out;
            ASSERT_TRUE(set.handler_for(*t)->print(ev, pc, out));
            ++seen;
            ASSERT_FALSE(queue.empty()) << name << ": more " << t->name << " events than trace-cmd printed";
            EXPECT_EQ(queue.front().first, t->name) << name << " cpu " << s.cpu();
            if (out.view() == queue.front().second) ++same;
            EXPECT_EQ(out.view(), queue.front().second) << name << " cpu " << s.cpu();
            queue.pop_front();
        }
        EXPECT_TRUE(s.status().ok()) << s.status().error().to_string();
    }
    EXPECT_EQ(seen, total) << name;
    EXPECT_EQ(same, total) << name;
    std::printf("%s: %zu/%zu plugin lines identical to trace-cmd report\n", name.c_str(), same, total);
}

}  // namespace

TEST(PrintersOnTraces, Basic) {
    check_trace("basic");
}
TEST(PrintersOnTraces, Full) {
    check_trace("full");
}
TEST(PrintersOnTraces, Dropped) {
    check_trace("dropped");
}
TEST(PrintersOnTraces, FormatsV6) {
    check_trace("formats-v6");
}
