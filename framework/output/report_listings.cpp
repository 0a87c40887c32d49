#include "framework/output/report_listings.hpp"

#include <algorithm>
#include <bit>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <string_view>
#include <vector>

#include "framework/engine/trace_file.hpp"
#include "framework/format/text_maps.hpp"

namespace ringscope::output {

namespace {

void appendf(std::string& out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void appendf(std::string& out, const char* fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if (static_cast<size_t>(n) < sizeof buf) {
        out.append(buf, static_cast<size_t>(n));
        return;
    }
    std::string big(static_cast<size_t>(n) + 1, '\0');
    va_start(ap, fmt);
    std::vsnprintf(big.data(), big.size(), fmt, ap);
    va_end(ap);
    out.append(big.data(), static_cast<size_t>(n));
}

}  // namespace

void append_stat(std::string& out, const engine::TraceFile& file) {
    const auto& o = file.reader().options();
    if (o.cpustats.empty()) {
        out += " No stats in this file\n";
    } else {
        // libtracecmd turns each option's terminating NUL into a newline and joins them.
        for (const auto& s : o.cpustats) {
            out += s;
            out += '\n';
        }
        out += '\n';
    }
    const auto& buffers = file.reader().buffers();
    if (buffers.empty()) return;
    const auto& cpus = buffers[0].cpus;
    // Compressed data: libtracecmd reports where each CPU's data lies once decompressed, laid out
    // one after the other from the first page boundary.
    uint64_t virtual_offset = file.reader().page_size();
    for (size_t i = 0; i < cpus.size(); ++i) {
        uint64_t offset = cpus[i].offset, size = cpus[i].size;
        auto pages = file.reader().cpu_pages(0, i);
        if (pages && pages->compressed()) {
            offset = virtual_offset;
            size = pages->data_size();
            virtual_offset += size;
        }
        appendf(out, "CPU%zu data recorded at offset=0x%" PRIx64 "\n", i, offset);
        appendf(out, "    %" PRId64 " bytes in size\n", static_cast<int64_t>(size));
    }
}

void append_uname(std::string& out, const engine::TraceFile& file) {
    const auto& o = file.reader().options();
    if (o.uname)
        out += *o.uname + "\n";
    else
        out += " uname was not recorded in this file\n";
}

void append_version(std::string& out, const engine::TraceFile& file) {
    const auto& o = file.reader().options();
    if (o.version)
        out += *o.version + "\n";
    else
        out += " version was not recorded in this file\n";
}

void append_endian(std::string& out, const engine::TraceFile& file) {
    const bool host_big = std::endian::native == std::endian::big;
    appendf(out, "file is %s endian and host is %s endian\n", file.big_endian() ? "big" : "little",
            host_big ? "big" : "little");
}

void append_event_list(std::string& out, const engine::TraceFile& file) {
    std::vector<const EventType*> types = file.types();
    // trace-cmd -E lists the file's formats before libtracecmd makes ftrace:blktrace up
    // (engine/blktrace_format.hpp): leave that one out unless the file has it
    const auto& ftrace = file.reader().metadata().ftrace_formats;
    const bool stored_blk = std::any_of(
        ftrace.begin(), ftrace.end(), [](const std::string& f) { return f.starts_with("name: blktrace\n"); });
    if (!stored_blk)
        std::erase_if(types,
                      [](const EventType* t) { return t->system == "ftrace" && t->name == "blktrace"; });
    std::sort(types.begin(), types.end(), [](const EventType* a, const EventType* b) {
        if (int c = a->system.compare(b->system)) return c < 0;
        if (int c = a->name.compare(b->name)) return c < 0;
        return a->id < b->id;
    });
    for (const EventType* t : types) {
        out += t->system;
        out += ':';
        out += t->name;
        out += '\n';
    }
}

void append_functions(std::string& out, const engine::TraceFile& file) {
    // The kallsyms lines libtraceevent keeps (tep_parse_kallsyms: not A/a, not '$'), sorted by
    // address; equal addresses in reverse file order (it prepends, then sorts stably).
    struct Func {
        uint64_t addr;
        size_t order;
        std::string_view name, mod;
    };
    std::vector<Func> funcs;
    std::string_view text = file.reader().metadata().kallsyms;
    size_t order = 0;
    while (!text.empty()) {
        size_t nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
        size_t sp = line.find(' ');
        if (sp == std::string_view::npos || sp + 2 >= line.size() || line[sp + 2] != ' ') continue;
        uint64_t addr = 0;
        bool ok = sp > 0 && sp <= 16;
        for (size_t i = 0; ok && i < sp; ++i) {
            char c = line[i];
            int d = c >= '0' && c <= '9'   ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                           : -1;
            if (d < 0) ok = false;
            addr = addr * 16 + static_cast<uint64_t>(d < 0 ? 0 : d);
        }
        if (!ok) continue;
        const char type = line[sp + 1];
        std::string_view rest = line.substr(sp + 3);
        std::string_view name = rest, mod;
        if (size_t tab = rest.find('\t'); tab != std::string_view::npos) {
            name = rest.substr(0, tab);
            mod = rest.substr(tab + 1);
            if (!mod.empty() && mod.front() == '[') mod.remove_prefix(1);
            if (!mod.empty() && mod.back() == ']') mod.remove_suffix(1);
        }
        if (type == 'A' || type == 'a' || name.empty() || name.front() == '$') continue;
        funcs.push_back({addr, order++, name, mod});
    }
    std::stable_sort(funcs.begin(), funcs.end(), [](const Func& a, const Func& b) {
        return a.addr != b.addr ? a.addr < b.addr : a.order > b.order;
    });
    for (const Func& f : funcs) {
        appendf(out, "%016" PRIx64 " %.*s", f.addr, static_cast<int>(f.name.size()), f.name.data());
        if (!f.mod.empty())
            appendf(out, " [%.*s]\n", static_cast<int>(f.mod.size()), f.mod.data());
        else
            out += '\n';
    }
}

void append_printk(std::string& out, const engine::TraceFile& file) {
    // libtraceevent keeps every line, duplicates included (tep_print_printk prints them all), sorted
    // by address; each line is read with the catalog's rules.
    struct Entry {
        uint64_t addr;
        size_t order;
        std::string text;
    };
    std::vector<Entry> entries;
    std::string_view text = file.reader().metadata().printk_formats;
    format::PrintkMap one;
    size_t order = 0;
    while (!text.empty()) {
        size_t nl = text.find('\n');
        std::string_view line = text.substr(0, nl == std::string_view::npos ? text.size() : nl + 1);
        text.remove_prefix(line.size());
        one.clear();
        if (!format::parse_printk_formats(line, one)) break;  // libtraceevent stops there too
        for (auto& [addr, s] : one) entries.push_back({addr, order++, std::move(s)});
    }
    std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
        return a.addr != b.addr ? a.addr < b.addr : a.order > b.order;
    });
    for (const auto& e : entries) appendf(out, "%016" PRIx64 " %s\n", e.addr, e.text.c_str());
}

}  // namespace ringscope::output
