#include "sched_printer.hpp"

#include <cstring>

namespace ringscope::sched {
namespace {

// A comm field as "%.*s" prints it (up to the field size or a NUL), then registered for pid.
void write_and_save_comm(const Event& ev, const FieldHandle& comm, uint64_t pid, PrintContext& pc,
                         TextBuffer& out) {
    auto bytes = ev.bytes(comm);
    const char* p = reinterpret_cast<const char*>(bytes.data());
    size_t n = bytes.empty() ? 0 : strnlen(p, bytes.size());
    std::string_view name(p, n);
    out.append(name);
    pc.register_comm(static_cast<int>(pid), name);
}

}  // namespace

const SchedPrinter::SwitchFields& SchedPrinter::switch_fields(const EventType& t) {
    auto it = switch_.find(&t);
    if (it != switch_.end()) return it->second;
    SwitchFields f{t.handle("prev_pid"),
                   t.handle("prev_comm"),
                   t.handle("prev_prio"),
                   t.handle("prev_state"),
                   t.handle("next_pid"),
                   t.handle("next_comm"),
                   t.handle("next_prio"),
                   std::make_unique<TaskStateNames>(legacy_states_ && legacy_states_->set ? nullptr : &t)};
    return switch_.emplace(&t, std::move(f)).first->second;
}

const SchedPrinter::WakeupFields& SchedPrinter::wakeup_fields(const EventType& t) {
    auto it = wakeup_.find(&t);
    if (it != wakeup_.end()) return it->second;
    WakeupFields f{t.handle("pid"), t.handle("comm"), t.handle("prio"), t.handle("success"),
                   t.handle("target_cpu")};
    return wakeup_.emplace(&t, f).first->second;
}

bool SchedPrinter::print(const Event& ev, PrintContext& pc, TextBuffer& out) {
    if (ev.name() == "sched_switch")
        print_switch(ev, pc, out);
    else
        print_wakeup(ev, pc, out);
    return true;
}

// Numbers are read as libtraceevent's tep_get_field_val reads them: unsigned, the field's size;
// printed with the conversions of the plugin's trace_seq_printf ("%lld", "[%d]", "CPU:%03llu").
void SchedPrinter::print_switch(const Event& ev, PrintContext& pc, TextBuffer& out) {
    const SwitchFields& f = switch_fields(ev.type());
    if (!f.prev_pid) {
        out.push_back('!');
        return;
    }
    uint64_t val = ev.u64(f.prev_pid);
    if (f.prev_comm) {
        write_and_save_comm(ev, f.prev_comm, val, pc, out);
        out.push_back(':');
    }
    out.append_int(static_cast<int64_t>(val));
    out.push_back(' ');
    if (f.prev_prio) {
        out.push_back('[');
        out.append_int(static_cast<int>(ev.u64(f.prev_prio)));
        out.append("] ");
    }
    // trace-cmd 3.4's plugin takes the letters from the format too, but never adds the "+".
    const bool mark_preempted = !compat_ || compat_->value != "3.4";
    if (f.prev_state) f.states->append(ev.u64(f.prev_state), out, mark_preempted);
    out.append(" ==> ");
    if (!f.next_pid) {
        out.push_back('!');
        return;
    }
    val = ev.u64(f.next_pid);
    if (f.next_comm) {
        write_and_save_comm(ev, f.next_comm, val, pc, out);
        out.push_back(':');
    }
    out.append_int(static_cast<int64_t>(val));
    if (f.next_prio) {
        out.append(" [");
        out.append_int(static_cast<int>(ev.u64(f.next_prio)));
        out.push_back(']');
    }
}

void SchedPrinter::print_wakeup(const Event& ev, PrintContext& pc, TextBuffer& out) {
    const WakeupFields& f = wakeup_fields(ev.type());
    if (!f.pid) {
        out.push_back('!');
        return;
    }
    uint64_t val = ev.u64(f.pid);
    if (f.comm) {
        write_and_save_comm(ev, f.comm, val, pc, out);
        out.push_back(':');
    }
    out.append_int(static_cast<int64_t>(val));
    if (f.prio) {
        out.append(" [");
        out.append_int(static_cast<int64_t>(ev.u64(f.prio)));
        out.push_back(']');
    }
    if (f.success) {
        out.append(" success=");
        out.append_int(static_cast<int64_t>(ev.u64(f.success)));
    }
    if (f.target_cpu) {
        // "%03llu"
        const uint64_t cpu = ev.u64(f.target_cpu);
        out.append(" CPU:");
        if (cpu < 100) out.append(cpu < 10 ? "00" : "0");
        out.append_uint(cpu);
    }
}

}  // namespace ringscope::sched
