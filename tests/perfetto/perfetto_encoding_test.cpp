// The encoder's pieces against the wire format and against Perfetto's .proto files, with numbers
// transcribed here independently of framework/perfetto/ftrace_schema.cpp.
#include <gtest/gtest.h>

#include "framework/perfetto/event_encoder.hpp"
#include "framework/perfetto/ftrace_schema.hpp"
#include "framework/perfetto/proto_writer.hpp"
#include "tests/perfetto/proto_reader.hpp"

namespace ringscope::perfetto {
namespace {

std::string hex(const std::string& s) {
    std::string out;
    char b[4];
    for (unsigned char c : s) {
        std::snprintf(b, sizeof b, "%02x", c);
        out += b;
    }
    return out;
}

TEST(PerfettoWire, VarintsAndFieldsAsProtobufWritesThem) {
    std::string s;
    put_uint(s, 1, 150);  // the protobuf documentation's example: 08 96 01
    EXPECT_EQ(hex(s), "089601");
    s.clear();
    put_int(s, 2, -1);  // negative int32/int64: ten bytes
    EXPECT_EQ(hex(s), "10ffffffffffffffffff01");
    s.clear();
    put_bytes(s, 2, "testing");
    EXPECT_EQ(hex(s), "120774657374696e67");
    s.clear();
    put_uint(s, 327, 1);  // a field number past 15 takes a two-byte key
    EXPECT_EQ(hex(s), "b81401");
    s.clear();
    put_double(s, 6, 1.5);
    EXPECT_EQ(hex(s), "31000000000000f83f");
    auto m = test::read_message(s);
    ASSERT_EQ(m.size(), 1u);
    EXPECT_EQ(m[0].number, 6u);
    EXPECT_EQ(m[0].wire, 1u);
}

TEST(PerfettoWire, NestedMessagesOfAnySize) {
    for (size_t n : {0, 5, 127, 128, 16383, 16384, 70000}) {
        std::string s = "x";
        const size_t at = begin_nested(s, 2);
        s.append(n, 'a');
        end_nested(s, at);
        put_uint(s, 3, 7);
        auto m = test::read_message(std::string_view(s).substr(1));
        ASSERT_EQ(m.size(), 2u) << n;
        EXPECT_EQ(m[0].number, 2u);
        EXPECT_EQ(m[0].bytes.size(), n);
        EXPECT_EQ(m[1].value, 7u);
    }
}

// The per-event buffer writes what std::string gets, across its growth and a nested message
// that has to move for a longer length.
TEST(PerfettoWire, BytesWritesWhatAStringGets) {
    for (size_t n : {0, 5, 127, 128, 16383, 16384, 70000}) {
        std::string s = "x";
        Bytes b;
        b.append("x", 1);
        const size_t at = begin_nested(s, 2), bat = begin_nested(b, 2);
        s.append(n, 'a');
        for (size_t i = 0; i < n; ++i) b.append("a", 1);
        end_nested(s, at);
        end_nested(b, bat);
        for (uint64_t v : {0ull, 127ull, 128ull, 1ull << 35, ~0ull}) {
            put_uint(s, 3, v);
            put_uint(b, 3, v);
            put_int(s, 4, -static_cast<int64_t>(v));
            put_int(b, 4, -static_cast<int64_t>(v));
        }
        put_bytes(s, 5, "text");
        put_bytes(b, 5, "text");
        EXPECT_EQ(hex(std::string(b.view())), hex(s)) << n;
    }
}

TEST(PerfettoWire, VarintSizeAtEveryLength) {
    for (unsigned bits = 0; bits <= 64; ++bits) {
        const uint64_t v = bits == 0 ? 0 : bits == 64 ? ~0ull : (1ull << bits) - 1;
        std::string s;
        put_varint(s, v);
        EXPECT_EQ(varint_size(v), s.size()) << bits;
        if (bits < 64) {
            s.clear();
            put_varint(s, v + 1);
            EXPECT_EQ(varint_size(v + 1), s.size()) << bits;
        }
    }
}

// FtraceEvent's oneof numbers and a few message layouts, from protos/perfetto/trace/ftrace/
// ftrace_event.proto, sched.proto, irq.proto, power.proto, ftrace.proto, workqueue.proto,
// task.proto and raw_syscalls.proto.
TEST(PerfettoSchema, NumbersMatchPerfettosProtos) {
    const std::pair<const char*, uint32_t> oneof[] = {
        {"print", 3},
        {"sched_switch", 4},
        {"cpu_frequency", 11},
        {"cpu_idle", 13},
        {"sched_wakeup", 17},
        {"sched_waking", 20},
        {"softirq_entry", 24},
        {"softirq_exit", 25},
        {"softirq_raise", 26},
        {"irq_handler_entry", 36},
        {"irq_handler_exit", 37},
        {"workqueue_execute_start", 58},
        {"workqueue_queue_work", 59},
        {"sched_wakeup_new", 114},
        {"task_newtask", 235},
        {"task_rename", 236},
        {"sched_process_exec", 237},
        {"sched_process_exit", 238},
        {"sched_process_fork", 239},
        {"sched_process_free", 240},
        {"sys_exit", 330},
        {"kvm_entry", 376},
        {"kvm_exit", 377},
    };
    for (const auto& [name, number] : oneof) {
        const TypedEvent* found = nullptr;
        for (const auto& e : typed_events())
            if (e.name == name) found = &e;
        ASSERT_NE(found, nullptr) << name;
        EXPECT_EQ(found->oneof_field, number) << name;
    }
    auto number_of = [](std::string_view sys, std::string_view ev, std::string_view f) -> int {
        const TypedEvent* e = find_typed_event(sys, ev);
        if (!e) return -1;
        for (const auto& tf : e->fields)
            if (tf.name == f) return static_cast<int>(tf.number);
        return -1;
    };
    EXPECT_EQ(number_of("sched", "sched_switch", "prev_state"), 4);
    EXPECT_EQ(number_of("sched", "sched_switch", "next_comm"), 5);
    EXPECT_EQ(number_of("sched", "sched_switch", "next_prio"), 7);
    EXPECT_EQ(number_of("sched", "sched_waking", "target_cpu"), 5);
    EXPECT_EQ(number_of("sched", "sched_process_fork", "child_pid"), 4);
    EXPECT_EQ(number_of("irq", "irq_handler_entry", "name"), 2);
    EXPECT_EQ(number_of("ftrace", "print", "buf"), 2);
    EXPECT_EQ(number_of("workqueue", "workqueue_queue_work", "workqueue"), 3);
    EXPECT_EQ(number_of("task", "task_rename", "newcomm"), 3);
    EXPECT_EQ(number_of("power", "cpu_idle", "cpu_id"), 2);
    // Wrapping messages.
    EXPECT_EQ(field::kEventGeneric, 327u);
    EXPECT_EQ(field::kGenericFieldUint, 5u);
    EXPECT_EQ(field::kPacketFtraceStats, 34u);
    EXPECT_EQ(field::kPacketMachineId, 98u);
    EXPECT_EQ(field::kThreadTgid, 3u);
    EXPECT_EQ(field::kInternedKernelSymbols, 26u);
    EXPECT_EQ(field::kBundleLostEvents, 3u);
}

TEST(PerfettoSchema, FunctionFieldsFromThePrintFmt) {
    using V = std::vector<std::string>;
    EXPECT_EQ(function_fields(R"("work struct %p: function %ps", REC->work, REC->function)"), V{"function"});
    EXPECT_EQ(function_fields(R"("%ps: %s", (void *)REC->ip, REC->buf)"), V{"ip"});
    EXPECT_EQ(
        function_fields(R"("hrtimer=%p function=%ps expires=%llu softexpires=%llu mode=%s", REC->hrtimer, )"
                        R"(REC->function, (unsigned long long) REC->expires, (unsigned long long) )"
                        R"(REC->softexpires, __print_symbolic(REC->mode, { 0, "A" }, { 1, "R" }))"),
        V{"function"});
    EXPECT_EQ(function_fields(R"("100%% %d %pS", REC->a, REC->b + 4)"), V{});  // arithmetic: no field
    EXPECT_EQ(function_fields(R"("call_site=%pS ptr=%p", (void *)REC->call_site, REC->ptr)"), V{"call_site"});
    EXPECT_EQ(function_fields(R"("a=%d", REC->a)"), V{});
}

}  // namespace
}  // namespace ringscope::perfetto
