// The contents of the metadata sections (trace-cmd.dat(5)): header_page/header_event, the ftrace
// and event formats, sized texts (kallsyms, printk formats, saved cmdlines). Written once for both
// cursors: FileCursor over v6's inline metadata, ByteCursor over a v7 section's (decompressed) body.
#pragma once

#include "framework/io/trace_dat_types.hpp"

#include <ringscope/error.hpp>

#include <cstdint>
#include <cstring>
#include <string>

namespace ringscope::io::detail {

template <class C>
Status expect_tag(C& c, const char* tag, size_t len) {
    auto b = c.bytes(len);
    if (!b) return std::move(b).error();
    if (std::memcmp(b->data(), tag, len) != 0) {
        return Error(Errc::corrupt, std::string("expected \"") + tag + "\"")
            .at_offset(static_cast<int64_t>(c.offset() - len));
    }
    return {};
}

// SOURCE, when given, holds the bytes C reads: the text moves out of it rather than being copied.
template <class C, class Size>
Status read_sized_text(C& c, std::string& out, std::string* source = nullptr) {
    auto n = c.template read<Size>();
    if (!n) return std::move(n).error();
    auto b = c.bytes(*n);
    if (!b) return std::move(b).error();
    const auto text = reinterpret_cast<uintptr_t>(b->data());
    const auto first = source ? reinterpret_cast<uintptr_t>(source->data()) : 0;
    if (source && text >= first && text + b->size() <= first + source->size()) {
        out = std::move(*source);
        out.erase(0, static_cast<size_t>(text - first));
        out.resize(b->size());
        return {};
    }
    out.assign(reinterpret_cast<const char*>(b->data()), b->size());
    return {};
}

template <class C>
Status parse_header_info(C& c, TraceMetadata& m) {
    if (auto s = expect_tag(c, "header_page", 12); !s) return s;
    if (auto s = read_sized_text<C, uint64_t>(c, m.header_page); !s) return s;
    if (auto s = expect_tag(c, "header_event", 13); !s) return s;
    return read_sized_text<C, uint64_t>(c, m.header_event);
}

template <class C>
Status parse_ftrace_formats(C& c, TraceMetadata& m) {
    auto n = c.template read<uint32_t>();
    if (!n) return std::move(n).error();
    if (*n > c.remaining() / 8)
        return c.error(Errc::corrupt, "ftrace format count " + std::to_string(*n) + " too large");
    m.ftrace_formats.resize(*n);
    for (auto& f : m.ftrace_formats)
        if (auto s = read_sized_text<C, uint64_t>(c, f); !s) return s;
    return {};
}

template <class C>
Status parse_event_formats(C& c, TraceMetadata& m) {
    auto n = c.template read<uint32_t>();
    if (!n) return std::move(n).error();
    if (*n > c.remaining() / 5)
        return c.error(Errc::corrupt, "event system count " + std::to_string(*n) + " too large");
    m.event_systems.resize(*n);
    for (auto& sys : m.event_systems) {
        auto name = c.cstring();
        if (!name) return std::move(name).error();
        sys.system = std::string(*name);
        auto count = c.template read<uint32_t>();
        if (!count) return std::move(count).error();
        if (*count > c.remaining() / 8) {
            return c.error(Errc::corrupt, "event count " + std::to_string(*count) + " of system " +
                                              sys.system + " too large");
        }
        sys.formats.resize(*count);
        for (auto& f : sys.formats)
            if (auto s = read_sized_text<C, uint64_t>(c, f); !s) return s;
    }
    return {};
}

// "[clock]" inside a trace_clock text.
inline std::string selected_clock(const std::string& text) {
    auto open = text.find('[');
    if (open == std::string::npos) return "";
    auto close = text.find(']', open);
    if (close == std::string::npos) return "";
    return text.substr(open + 1, close - open - 1);
}

}  // namespace ringscope::io::detail
