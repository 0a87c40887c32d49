// The tracefs layer on a private instance: create/exists/remove, events by name and glob, sizes,
// clock, tracing_on, stats, metadata files.
#include <gtest/gtest.h>

#include <cstdlib>

#include <ringscope/sub_buffer.hpp>
#include <ringscope/tracefs.hpp>

#include "framework/capture/event_selection.hpp"
#include "tracefs_test_util.hpp"

using namespace ringscope;
using namespace rs_tracefs_test;

TEST(TracefsLayer, MissingTracefsIsAClearError) {
    ::setenv("RINGSCOPE_TRACEFS", "/nonexistent/tracing", 1);
    auto r = tracefs::find_tracefs();
    ::unsetenv("RINGSCOPE_TRACEFS");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code(), Errc::not_found);
    EXPECT_NE(r.error().to_string().find("tracefs not found"), std::string::npos) << r.error().to_string();
    EXPECT_NE(r.error().to_string().find("/nonexistent/tracing"), std::string::npos);
}

TEST(TracefsLayer, InstanceLifecycle) {
    REQUIRE_TRACEFS(root);
    TracefsLock lock;
    const std::string name = unique_name("layer");
    auto inst = tracefs::Instance::create(name, root);
    ASSERT_TRUE(inst) << inst.error().to_string();
    struct Cleanup {
        tracefs::Instance& i;
        ~Cleanup() { (void)i.destroy(); }
    } cleanup{*inst};
    EXPECT_TRUE(instance_exists(root, name));
    EXPECT_EQ(inst->dir(), root + "/instances/" + name);

    // A second create is refused: it may be someone else's buffer.
    auto again = tracefs::Instance::create(name, root);
    ASSERT_FALSE(again);
    EXPECT_EQ(again.error().code(), Errc::invalid_argument);
    EXPECT_NE(again.error().message().find("already exists"), std::string::npos);
    ASSERT_TRUE(tracefs::Instance::open(name, root));

    // Sizes, clock, tracing_on.
    ASSERT_TRUE(inst->set_buffer_size_kb(64));
    auto kb = inst->buffer_size_kb();
    ASSERT_TRUE(kb);
    EXPECT_GE(*kb, 64u);  // the kernel rounds up to whole sub-buffers
    EXPECT_LE(*kb, 80u);
    ASSERT_TRUE(inst->set_clock("mono"));
    auto c = inst->clock();
    ASSERT_TRUE(c);
    EXPECT_EQ(*c, "mono");
    EXPECT_FALSE(inst->set_clock("no-such-clock"));
    ASSERT_TRUE(inst->set_tracing_on(false));
    EXPECT_FALSE(*inst->tracing_on());
    ASSERT_TRUE(inst->set_tracing_on(true));
    EXPECT_TRUE(*inst->tracing_on());
    auto sb = inst->subbuf_size();
    ASSERT_TRUE(sb);
    EXPECT_GE(*sb, 4096u);

    // Events: a whole system, a glob, one event; enabled_events() lists them.
    ASSERT_TRUE(inst->enable_events("sched", "sched_process_*"));
    auto on = inst->enabled_events();
    ASSERT_TRUE(on);
    EXPECT_NE(std::find(on->begin(), on->end(), "sched:sched_process_exit"), on->end());
    EXPECT_EQ(std::find(on->begin(), on->end(), "sched:sched_switch"), on->end());
    ASSERT_TRUE(inst->disable_events("sched"));
    on = inst->enabled_events();
    ASSERT_TRUE(on);
    EXPECT_TRUE(on->empty());
    auto none = inst->enable_events("no_such_system_xyz");
    ASSERT_FALSE(none);
    EXPECT_EQ(none.error().code(), Errc::not_found);

    auto sel = capture::select_events(*inst, {"sched_switch", "irq", "sched:sched_wakeup*"});
    ASSERT_TRUE(sel) << sel.error().to_string();
    EXPECT_NE(std::find(sel->events.begin(), sel->events.end(),
                        std::make_pair(std::string("sched"), std::string("sched_switch"))),
              sel->events.end());
    EXPECT_NE(std::find(sel->events.begin(), sel->events.end(),
                        std::make_pair(std::string("sched"), std::string("sched_wakeup_new"))),
              sel->events.end());
    EXPECT_FALSE(capture::select_events(*inst, {"no_such_event_xyz"}));

    // Stats: a marker shows in entries.
    ASSERT_TRUE(inst->clear());
    ASSERT_TRUE(inst->write("trace_marker", "hello"));
    auto cpus = inst->cpus();
    ASSERT_TRUE(cpus);
    uint64_t entries = 0;
    for (int cpu : *cpus) {
        auto s = inst->cpu_stats(cpu);
        ASSERT_TRUE(s) << s.error().to_string();
        EXPECT_NE(s->text.find("entries:"), std::string::npos);
        entries += s->entries;
    }
    EXPECT_EQ(entries, 1u);

    ASSERT_TRUE(inst->destroy());
    EXPECT_FALSE(instance_exists(root, name));
    EXPECT_FALSE(tracefs::Instance::open(name, root));
}

TEST(TracefsLayer, MetadataFiles) {
    REQUIRE_TRACEFS(root);
    auto hp = tracefs::read_header_page(root);
    ASSERT_TRUE(hp);
    auto layout = SubBufferLayout::from_header_page(*hp);
    ASSERT_TRUE(layout) << layout.error().to_string();
    auto he = tracefs::read_header_event(root);
    ASSERT_TRUE(he);
    EXPECT_NE(he->find("type_len"), std::string::npos);
    auto systems = tracefs::event_systems(root);
    ASSERT_TRUE(systems);
    EXPECT_NE(std::find(systems->begin(), systems->end(), "ftrace"), systems->end());
    auto fmt = tracefs::read_event_format(root, "ftrace", "print");
    ASSERT_TRUE(fmt);
    EXPECT_NE(fmt->find("name: print"), std::string::npos);
    auto k = tracefs::read_kallsyms();
    ASSERT_TRUE(k);
    EXPECT_GT(k->size(), 1000u);
    EXPECT_TRUE(tracefs::read_printk_formats(root));
    EXPECT_TRUE(tracefs::read_saved_cmdlines(root));
    auto bad = tracefs::read_event_format(root, "no_such", "event");
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().file().find("no_such/event/format"), std::string::npos);
}
