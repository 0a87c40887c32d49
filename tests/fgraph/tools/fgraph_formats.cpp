#include "fgraph_formats.hpp"

namespace fgraph_tool {

std::string EventDef::text() const {
    std::string t = "name: " + name + "\nID: " + std::to_string(id) + "\nformat:\n";
    t += "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n";
    t += "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n";
    t += "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n";
    t += "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n";
    for (const auto& f : fields)
        t += "\tfield:" + f.decl + ";\toffset:" + std::to_string(f.offset) +
             ";\tsize:" + std::to_string(f.size) + ";\tsigned:" + (f.is_signed ? "1" : "0") + ";\n";
    t += "\nprint fmt: " + print_fmt + "\n";
    return t;
}

namespace {

FieldDef ulong(const char* name, uint32_t off, uint32_t ls) {
    return {std::string("unsigned long ") + name, name, off, ls, false};
}
FieldDef i32(const char* name, uint32_t off) {
    return {std::string("int ") + name, name, off, 4, true};
}
FieldDef u32(const char* name, uint32_t off) {
    return {std::string("unsigned int ") + name, name, off, 4, false};
}
FieldDef u64(const char* name, uint32_t off) {
    return {std::string("unsigned long long ") + name, name, off, 8, false};
}
FieldDef args(uint32_t off) {
    return {"unsigned long args[]", "args", off, 0, false};
}

// Before 5.x the print fmts print addresses with %lx; from then on with %ps.
const char* kEntryLx = "\"--> %lx (%d)\", REC->func, REC->depth";
const char* kExitLx =
    "\"<-- %lx (%d) (start: %llx  end: %llx) over: %d\", REC->func, REC->depth, REC->calltime, "
    "REC->rettime, REC->depth";
const char* kEntryPs = "\"--> %ps (%d)\", (void *)REC->func, REC->depth";
const char* kExitPs =
    "\"<-- %ps (%d) (start: %llx  end: %llx) over: %d\", (void *)REC->func, REC->depth, REC->calltime, "
    "REC->rettime, REC->depth";

EventDef function_lx(uint32_t ls) {
    return {"function",
            1,
            {ulong("ip", 8, ls), ulong("parent_ip", 8 + ls, ls)},
            "\" %lx <-- %lx\", REC->ip, REC->parent_ip",
            8 + 2 * ls};
}

uint32_t align(uint32_t n, uint32_t to) {
    return (n + to - 1) / to * to;
}

// 4.x: struct ftrace_graph_ret { unsigned long func, overrun; unsigned long long calltime, rettime;
// int depth; } (u64 aligned to the long size), its fields listed func, calltime, rettime, overrun,
// depth.
Flavour kernel_4(const char* name, const char* kernel, uint32_t ls) {
    Flavour f{name, kernel, ls, function_lx(ls), {}, {}, {}};
    f.entry = {
        "funcgraph_entry", 11, {ulong("func", 8, ls), i32("depth", 8 + ls)}, kEntryLx, align(12 + ls, ls)};
    f.exit = {"funcgraph_exit",
              10,
              {ulong("func", 8, ls), u64("calltime", 8 + 2 * ls), u64("rettime", 16 + 2 * ls),
               ulong("overrun", 8 + ls, ls), i32("depth", 24 + 2 * ls)},
              kExitLx,
              align(28 + 2 * ls, ls)};
    return f;
}

Flavour x86_64_5() {
    Flavour f{"x86_64-5.x", "5.15 x86_64", 8, function_lx(8), {}, {}, {}};
    f.function.print_fmt = "\" %ps <-- %ps\", (void *)REC->ip, (void *)REC->parent_ip";
    f.entry = {"funcgraph_entry", 11, {ulong("func", 8, 8), i32("depth", 16)}, kEntryPs, 20};
    f.exit = {
        "funcgraph_exit",
        10,
        {ulong("func", 8, 8), i32("depth", 16), u32("overrun", 20), u64("calltime", 24), u64("rettime", 32)},
        kExitPs,
        40};
    return f;
}

// CONFIG_FUNCTION_GRAPH_RETVAL (6.5) and CONFIG_FUNCTION_GRAPH_RETADDR (6.13), packed entries.
Flavour x86_64_6_retval() {
    Flavour f = x86_64_5();
    f.name = "x86_64-6.13-retval";
    f.kernel = "6.13 x86_64";
    f.exit = {
        "funcgraph_exit",
        10,
        {ulong("func", 8, 8), ulong("retval", 16, 8), i32("depth", 24), u32("overrun", 28),
         u64("calltime", 32), u64("rettime", 40)},
        "\"<-- %ps (%d) (start: %llx  end: %llx) over: %d retval: %lx\", (void *)REC->func, REC->depth, "
        "REC->calltime, REC->rettime, REC->depth, REC->retval",
        48};
    f.extra.push_back({"fgraph_retaddr_entry",
                       12,
                       {ulong("func", 8, 8), i32("depth", 16), ulong("retaddr", 20, 8)},
                       "\"--> %ps (%d) <- %ps\", (void *)REC->func, REC->depth, (void *)REC->retaddr",
                       28});
    return f;
}

// This machine's kernel (6.18): events/ftrace/{function,funcgraph_entry,funcgraph_exit}/format.
Flavour x86_64_6_18() {
    Flavour f{"x86_64-6.18", "6.18 x86_64", 8, {}, {}, {}, {}};
    f.function = {"function",
                  1,
                  {ulong("ip", 8, 8), ulong("parent_ip", 16, 8), args(24)},
                  "\" %ps <-- %ps\", (void *)REC->ip, (void *)REC->parent_ip",
                  24};
    f.entry = {"funcgraph_entry",
               11,
               {ulong("func", 8, 8), u32("depth", 16), args(24)},
               "\"--> %ps (%u)\", (void *)REC->func, REC->depth",
               24};
    f.exit = {
        "funcgraph_exit",
        10,
        {ulong("func", 8, 8), u32("depth", 16), u32("overrun", 20), u64("calltime", 24), u64("rettime", 32)},
        "\"<-- %ps (%u) (start: %llx  end: %llx) over: %u\", (void *)REC->func, REC->depth, REC->calltime, "
        "REC->rettime, REC->depth",
        40};
    return f;
}

}  // namespace

std::vector<Flavour> flavours() {
    return {kernel_4("i386-4.13", "4.13.9 i686", 4), kernel_4("x86_64-4.x", "4.19 x86_64", 8), x86_64_5(),
            x86_64_6_retval(), x86_64_6_18()};
}

std::vector<Flavour> big_endian_flavours() {
    Flavour ppc = kernel_4("ppc-4.13-be", "4.13.9 ppc", 4);
    Flavour ppc64 = x86_64_5();
    ppc64.name = "ppc64-5.x-be";
    ppc64.kernel = "5.15 ppc64";
    ppc.big_endian = ppc64.big_endian = true;
    return {ppc, ppc64};
}

Flavour broken() {
    Flavour f = x86_64_6_18();
    f.name = "broken";
    f.entry.fields = {ulong("func", 8, 8)};
    f.entry.print_fmt = "\"--> %ps\", (void *)REC->func";
    f.exit.fields[3] = {"unsigned long long calltime", "calltime", 24, 3, false};
    return f;
}

Flavour no_exit() {
    Flavour f = x86_64_6_18();
    f.name = "no-exit";
    f.has_exit = false;
    return f;
}

EventDef irq_handler_entry() {
    return {"irq_handler_entry",
            120,
            {i32("irq", 8), {"__data_loc char[] name", "name", 12, 4, true}},
            "\"irq=%d name=%s\", REC->irq, __get_str(name)",
            16};
}

std::string header_page(uint32_t long_size) {
    const std::string ls = std::to_string(long_size);
    const std::string data = std::to_string(8 + long_size);
    return "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
           "\tfield: local_t commit;\toffset:8;\tsize:" +
           ls +
           ";\tsigned:1;\n"
           "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
           "\tfield: char data;\toffset:" +
           data + ";\tsize:" + std::to_string(4096 - 8 - long_size) + ";\tsigned:1;\n";
}

std::string header_event() {
    return "# compressed entry header\n"
           "\ttype_len    :    5 bits\n"
           "\ttime_delta  :   27 bits\n"
           "\tarray       :   32 bits\n"
           "\n"
           "\tpadding     : type == 29\n"
           "\ttime_extend : type == 30\n"
           "\ttime_stamp : type == 31\n"
           "\tdata max type_len  == 28\n";
}

}  // namespace fgraph_tool
