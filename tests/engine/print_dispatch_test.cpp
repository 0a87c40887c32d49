// PrintDispatch prints each event as the catalog does, whether its type's compiled print fmt was
// cached by an earlier event or not; a type a plugin may print, or set raw, never takes the cache.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <tuple>

#include "framework/engine/event_merger.hpp"
#include "framework/engine/print_dispatch.hpp"
#include "framework/engine/trace_file.hpp"
#include "framework/format/format_catalog.hpp"
#include "test_trace.hpp"

namespace ringscope::engine {
namespace {

// Calls fn(event) for every known event of the file, in time order.
template <typename Fn>
void for_each_event(TraceFile& f, Fn&& fn) {
    auto streams = f.open_streams(0);
    ASSERT_TRUE(streams);
    EventMerger m;
    int n = 0;
    for (auto& s : *streams) m.add(MergeSource{&f, 0, 0, n++, std::move(s)});
    const Record* rec;
    MergeSource* src;
    while (m.next(rec, src)) {
        const EventType* t = f.type_of(rec->data, rec->size);
        if (!t) continue;
        fn(Event(t, &f, {rec->data, rec->size}, rec->ts, rec->cpu, rec->missed, rec->trailing));
    }
}

// Prints the events of one type itself on every other call and declines otherwise.
class Alternating final : public EventHandler {
  public:
    explicit Alternating(std::string type) : type_(std::move(type)) {}
    std::string_view name() const override { return "alternating"; }
    std::vector<EventMatch> subscriptions() const override { return {EventMatch{"", type_}}; }
    bool overrides_print() const override { return true; }
    bool print(const Event&, PrintContext&, TextBuffer& out) override {
        if (!(calls_++ % 2)) return false;
        out.append("OVERRIDDEN");
        return true;
    }

  private:
    std::string type_;
    unsigned calls_ = 0;
};

TEST(EnginePrintDispatch, CachedCompiledPrintGivesTheCatalogsText) {
    for (const char* name : {"basic.dat", "full.dat", "formats-zstd.dat"}) {
        auto f = test::open_file(test::data_path(std::string("traces/") + name));
        PrintDispatch d(*f, {});
        std::map<const EventType*, size_t> per_type;
        size_t events = 0;
        TextBuffer got, want;
        for_each_event(*f, [&](const Event& ev) {
            got.clear();
            want.clear();
            got.append("head: ");  // printed after what the line already holds
            want.append("head: ");
            d.print_info(ev, got);
            f->formats().print_info(ev, want);
            ASSERT_EQ(got.view(), want.view()) << name << " " << ev.name();
            ++per_type[ev.type_ptr()];
            ++events;
        });
        EXPECT_GT(events, 0u) << name;
        size_t repeated = 0;
        for (const auto& [type, n] : per_type) repeated += n > 1 && f->formats().compiled(*type);
        EXPECT_GT(repeated, 0u) << name << ": no type printed twice through the cache";
    }
}

TEST(EnginePrintDispatch, OverriddenAndRawTypesAreNotCached) {
    auto f = test::open_file(test::data_path("traces/basic.dat"));
    // The override goes to the most frequent type with a compiled print fmt (one that would be cached).
    std::map<std::string, size_t> compiled_counts;
    for_each_event(*f, [&](const Event& ev) {
        if (f->formats().compiled(ev.type())) ++compiled_counts[std::string(ev.name())];
    });
    std::string type;
    size_t most = 0;
    for (const auto& [name, n] : compiled_counts)
        if (n > most) std::tie(type, most) = std::tie(name, n);
    ASSERT_GT(most, 3u);
    Alternating handler(type);
    EventHandler* handlers[] = {&handler};
    PrintDispatch d(*f, handlers);
    size_t overridden = 0, plain = 0, raw = 0;
    uint32_t raw_id = 0;
    TextBuffer got, want;
    for_each_event(*f, [&](const Event& ev) {
        got.clear();
        d.print_info(ev, got);
        if (ev.name() == type) {
            (got.view() == "OVERRIDDEN" ? overridden : plain)++;
            return;
        }
        // The first other type with a compiled print fmt: just printed (and cached), now set raw.
        if (raw_id == 0 && f->formats().compiled(ev.type())) {
            raw_id = ev.id();
            d.set_raw(raw_id);
        } else if (ev.id() != raw_id) {
            return;
        }
        want.clear();
        f->formats().print_fields(ev, want);
        got.clear();
        d.print_info(ev, got);
        EXPECT_EQ(got.view(), want.view());
        ++raw;
    });
    EXPECT_GT(overridden, 1u);
    EXPECT_GT(plain, 1u);
    EXPECT_GE(plain, overridden);
    EXPECT_LE(plain, overridden + 1);
    EXPECT_GT(raw, 1u);
}

}  // namespace
}  // namespace ringscope::engine
