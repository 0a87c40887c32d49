#include "futex_printer.hpp"

namespace ringscope::futex {
namespace {

constexpr std::string_view kArgNames[FutexPrinter::kArgs] = {"uaddr", "op", "val", "utime", "uaddr2", "val3"};
enum Arg { kUaddr, kOp, kVal, kUtime, kUaddr2, kVal3 };

// How an operation shows its arguments: absent, decimal, or 0x%08llx.
enum Show : uint8_t { kNone, kDec, kHex };

struct OpInfo {
    std::string_view name;
    Show val, utime, uaddr2, val3;
    bool utime_is_val2;  // the requeue operations pass a count in the timeout slot
};

// <linux/futex.h>: FUTEX_WAIT = 0 ... FUTEX_CMP_REQUEUE_PI = 12.
constexpr OpInfo kOps[] = {
    {"FUTEX_WAIT", kHex, kHex, kNone, kNone, false},
    {"FUTEX_WAKE", kDec, kNone, kNone, kNone, false},
    {"FUTEX_FD", kDec, kNone, kNone, kNone, false},
    {"FUTEX_REQUEUE", kDec, kDec, kHex, kNone, true},
    {"FUTEX_CMP_REQUEUE", kDec, kDec, kHex, kHex, true},
    {"FUTEX_WAKE_OP", kDec, kDec, kHex, kHex, true},
    {"FUTEX_LOCK_PI", kNone, kHex, kNone, kNone, false},
    {"FUTEX_UNLOCK_PI", kNone, kNone, kNone, kNone, false},
    {"FUTEX_TRYLOCK_PI", kNone, kNone, kNone, kNone, false},
    {"FUTEX_WAIT_BITSET", kHex, kHex, kNone, kHex, false},
    {"FUTEX_WAKE_BITSET", kDec, kNone, kNone, kHex, false},
    {"FUTEX_WAIT_REQUEUE_PI", kHex, kHex, kHex, kHex, false},
    {"FUTEX_CMP_REQUEUE_PI", kDec, kDec, kHex, kHex, true},
};

constexpr uint64_t kPrivateFlag = 128;
constexpr uint64_t kClockRealtime = 256;

void show(TextBuffer& out, std::string_view label, Show how, uint64_t v) {
    if (how == kNone) return;
    out.push_back(' ');
    out.append(label);
    out.appendf(how == kHex ? "=0x%08llx" : "=%llu", static_cast<unsigned long long>(v));
}

}  // namespace

bool FutexPrinter::print(const Event& ev, PrintContext& pc, TextBuffer& out) {
    auto it = fields_.find(ev.type_ptr());
    if (it == fields_.end()) {
        std::array<FieldHandle, kArgs> h{};
        for (int i = 0; i < kArgs; ++i)
            for (const auto& f : ev.type().fields)
                if (f.name == kArgNames[i]) h[i] = FieldHandle{f.offset, f.size, f.flags, true};
        it = fields_.emplace(ev.type_ptr(), h).first;
    }
    uint64_t args[kArgs];
    for (int i = 0; i < kArgs; ++i) {
        const FieldHandle& h = it->second[i];
        // tep_get_field_val(..., err = 1): complain, and the handler's failure brings the default print.
        if (!h) {
            out.append("<CANT FIND FIELD ");
            out.append(kArgNames[i]);
            out.push_back('>');
            pc.print_default(ev, out);
            return true;
        }
        if (h.size != 1 && h.size != 2 && h.size != 4 && h.size != 8) {
            out.push_back(' ');
            out.append(kArgNames[i]);
            out.append("=INVALID");
            pc.print_default(ev, out);
            return true;
        }
        args[i] = ev.u64(h);
    }
    const uint64_t cmd = args[kOp] & ~(kPrivateFlag | kClockRealtime);
    if (cmd >= std::size(kOps)) {
        pc.print_default(ev, out);
        return true;
    }
    const OpInfo& op = kOps[cmd];
    out.append("op=");
    out.append(op.name);
    if (args[kOp] & kPrivateFlag) out.append("|FUTEX_PRIVATE_FLAG");
    if (args[kOp] & kClockRealtime) out.append("|FUTEX_CLOCK_REALTIME");
    out.appendf(" uaddr=0x%08llx", static_cast<unsigned long long>(args[kUaddr]));
    show(out, "val", op.val, args[kVal]);
    show(out, op.utime_is_val2 ? "val2" : "utime", op.utime, args[kUtime]);
    show(out, "uaddr2", op.uaddr2, args[kUaddr2]);
    show(out, "val3", op.val3, args[kVal3]);
    return true;
}

}  // namespace ringscope::futex
