// The sched plugin's task-state bits read from the print fmt of sched_switch, on the expressions
// real kernels write (taken from the formats of the shared external traces).
#include <gtest/gtest.h>

#include "framework/format/state_bits.hpp"

namespace ringscope::sched {
namespace {

TEST(StateBits, ConstantExpressions) {
    EXPECT_EQ(eval_constant("4096-1"), 4095u);
    EXPECT_EQ(eval_constant("0x1000"), 0x1000u);
    EXPECT_EQ(eval_constant(
                  "(((0x0000 | 0x0001 | 0x0002 | 0x0004 | 0x0008 | 0x0010 | 0x0020 | 0x0040) + 1) << 1) - 1"),
              0xffu);
    // stops at what is not part of it: an unmatched ')', a ',' or a '?'
    EXPECT_EQ(eval_constant("((((0x01 | 0x02) + 1) << 1))) ? \"+\""), 8u);
    EXPECT_EQ(eval_constant("2048 ? \"+\" : \"\""), 2048u);
    EXPECT_EQ(eval_constant("1024 - 1, \"|\""), 1023u);
    EXPECT_FALSE(eval_constant("REC->x"));
    EXPECT_FALSE(eval_constant("(1 +"));
    EXPECT_FALSE(eval_constant(""));
}

// i386 4.13.9 (bengo_fifo_i386.dat, lisa_sched_load.dat's arm64): TASK_REPORT_MAX 4096, above
// the highest letter (1024 << 1 would say 2048).
TEST(StateBits, Kernel413) {
    const StateBits b = state_bits_from_print_fmt(
        "\"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d "
        "next_prio=%d\", "
        "REC->prev_comm, REC->prev_pid, REC->prev_prio, REC->prev_state & (4096-1) ? "
        "__print_flags(REC->prev_state & (4096-1), \"|\", { 1, \"S\"} , { 2, \"D\" }, { 4, \"T\" }, { 8, "
        "\"t\" }, "
        "{ 16, \"Z\" }, { 32, \"X\" }, { 64, \"x\" }, { 128, \"K\" }, { 256, \"W\" }, { 512, \"P\" }, { "
        "1024, \"N\" }) "
        ": \"R\", REC->prev_state & 4096 ? \"+\" : \"\", REC->next_comm, REC->next_pid, REC->next_prio");
    EXPECT_EQ(b.mask, 4095u);
    EXPECT_EQ(b.preempt, 4096u);
}

// arm32 4.14 (kmf_arm32.dat, hebel_arm32_irq.dat): letters up to 0x80, "+" at 0x1000.
TEST(StateBits, Kernel414) {
    const StateBits b = state_bits_from_print_fmt(
        "\"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d "
        "next_prio=%d\", "
        "REC->prev_comm, REC->prev_pid, REC->prev_prio, (REC->prev_state & ((((0x0000 | 0x0001 | 0x0002 | "
        "0x0004 | "
        "0x0008 | 0x0010 | 0x0020 | 0x0040) + 1) << 1) - 1)) ? __print_flags(REC->prev_state & ((((0x0000 | "
        "0x0001 | "
        "0x0002 | 0x0004 | 0x0008 | 0x0010 | 0x0020 | 0x0040) + 1) << 1) - 1), \"|\", { 0x01, \"S\" }, { "
        "0x02, \"D\" }, "
        "{ 0x04, \"T\" }, { 0x08, \"t\" }, { 0x10, \"X\" }, { 0x20, \"Z\" }, { 0x40, \"P\" }, { 0x80, \"I\" "
        "}) : \"R\", "
        "REC->prev_state & 0x1000 ? \"+\" : \"\", REC->next_comm, REC->next_pid, REC->next_prio");
    EXPECT_EQ(b.mask, 0xffu);
    EXPECT_EQ(b.preempt, 0x1000u);
}

// 5.x/6.x: the "+" bit is the one above the mask, written as an expression in parentheses.
TEST(StateBits, Kernel6) {
    const StateBits b = state_bits_from_print_fmt(
        "\"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d "
        "next_prio=%d\", "
        "REC->prev_comm, REC->prev_pid, REC->prev_prio, (REC->prev_state & ((((0x00000000 | 0x00000001 | "
        "0x00000002 | "
        "0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1)) ? "
        "__print_flags(REC->prev_state "
        "& ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | "
        "0x00000040) + "
        "1) << 1) - 1), \"|\", { 0x00000001, \"S\" }, { 0x00000002, \"D\" }, { 0x00000004, \"T\" }, { "
        "0x00000008, \"t\" }, "
        "{ 0x00000010, \"X\" }, { 0x00000020, \"Z\" }, { 0x00000040, \"P\" }, { 0x00000080, \"I\" }) : "
        "\"R\", "
        "(REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 "
        "| "
        "0x00000020 | 0x00000040) + 1) << 1))) ? \"+\" : \"\", REC->next_comm, REC->next_pid, "
        "REC->next_prio");
    EXPECT_EQ(b.mask, 0xffu);
    EXPECT_EQ(b.preempt, 0x100u);
}

TEST(StateBits, FormatWithoutThem) {
    const StateBits b = state_bits_from_print_fmt("\"pid=%d\", REC->pid");
    EXPECT_FALSE(b.mask);
    EXPECT_FALSE(b.preempt);
}

}  // namespace
}  // namespace ringscope::sched
