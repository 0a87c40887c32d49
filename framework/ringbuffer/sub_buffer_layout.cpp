#include <sys/utsname.h>
#include <unistd.h>

#include <charconv>
#include <cstring>
#include <string>

#include "ringscope/sub_buffer.hpp"

namespace ringscope {
namespace {

// libtraceevent's rule: a 32-bit process may still read a 64-bit kernel's buffers.
uint8_t host_long_size() {
    if (sizeof(long) == 8) return 8;
    utsname u{};
    if (uname(&u) < 0) return 4;
    return std::strstr(u.machine, "64") ? 8 : 4;
}

uint32_t host_page_size() {
    const long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? static_cast<uint32_t>(p) : 4096;
}

struct HeaderField {
    std::string_view name;
    uint64_t offset = 0;
    uint64_t size = 0;
    int line = 0;
};

// Reads "NAME:NUMBER;" at `pos` of `line`; advances pos.
bool read_attr(std::string_view line, size_t& pos, std::string_view name, uint64_t& value) {
    const size_t at = line.find(name, pos);
    if (at == std::string_view::npos || line.substr(at + name.size(), 1) != ":") return false;
    const char* b = line.data() + at + name.size() + 1;
    const char* e = line.data() + line.size();
    auto [p, ec] = std::from_chars(b, e, value);
    if (ec != std::errc() || p == e || *p != ';') return false;
    pos = static_cast<size_t>(p - line.data()) + 1;
    return true;
}

}  // namespace

SubBufferLayout SubBufferLayout::host() {
    SubBufferLayout l;
    l.long_size = host_long_size();
    l.data_offset = 8u + l.long_size;
    l.subbuf_size = host_page_size();
    return l;
}

Expected<SubBufferLayout> SubBufferLayout::make(SubBufferEndian endian, SubBufferLongSize long_size,
                                                uint32_t subbuf_size) {
    SubBufferLayout l = host();
    switch (endian) {
        case SubBufferEndian::host:
            break;
        case SubBufferEndian::big:
            l.big_endian = true;
            break;
        case SubBufferEndian::little:
            l.big_endian = false;
            break;
        default:
            return Error(Errc::invalid_argument, "unknown sub-buffer byte order");
    }
    switch (long_size) {
        case SubBufferLongSize::host:
            break;
        case SubBufferLongSize::four:
            l.long_size = 4;
            break;
        case SubBufferLongSize::eight:
            l.long_size = 8;
            break;
        default:
            return Error(Errc::invalid_argument, "long size must be 4 or 8");
    }
    l.data_offset = 8u + l.long_size;
    if (subbuf_size) {
        if (subbuf_size < l.data_offset || subbuf_size - l.data_offset > l.commit_mask) {
            return Error(Errc::invalid_argument,
                         "sub-buffer size " + std::to_string(subbuf_size) + " out of range");
        }
        l.subbuf_size = subbuf_size;
    }
    return l;
}

Expected<SubBufferLayout> SubBufferLayout::from_header_page(std::string_view text, SubBufferEndian endian) {
    auto base = make(endian, SubBufferLongSize::host);
    if (!base) return std::move(base).error();
    SubBufferLayout l = *base;
    HeaderField ts, commit, overwrite, data;
    int line_no = 0;
    size_t begin = 0;
    while (begin < text.size()) {
        size_t end = text.find('\n', begin);
        if (end == std::string_view::npos) end = text.size();
        const std::string_view line = text.substr(begin, end - begin);
        begin = end + 1;
        ++line_no;
        const size_t f = line.find("field:");
        if (f == std::string_view::npos) continue;
        const size_t semi = line.find(';', f);
        if (semi == std::string_view::npos) {
            return Error(Errc::parse, "field declaration without ';'")
                .at_line(line_no, static_cast<int>(f) + 1);
        }
        std::string_view decl = line.substr(f + 6, semi - f - 6);
        while (!decl.empty() && (decl.back() == ' ' || decl.back() == '\t')) decl.remove_suffix(1);
        const size_t sp = decl.find_last_of(" \t");
        HeaderField fld;
        fld.name = sp == std::string_view::npos ? decl : decl.substr(sp + 1);
        fld.line = line_no;
        size_t pos = semi + 1;
        uint64_t sign = 0;
        if (!read_attr(line, pos, "offset", fld.offset) || !read_attr(line, pos, "size", fld.size) ||
            !read_attr(line, pos, "signed", sign)) {
            return Error(Errc::parse, "expected offset:N; size:N; signed:N; after the field")
                .at_line(line_no, static_cast<int>(semi) + 2);
        }
        if (fld.name == "timestamp")
            ts = fld;
        else if (fld.name == "commit")
            commit = fld;
        else if (fld.name == "overwrite")
            overwrite = fld;
        else if (fld.name == "data")
            data = fld;
    }
    if (!ts.line || !commit.line || !data.line) {
        return Error(Errc::parse, std::string("header_page lacks the ") +
                                      (!ts.line       ? "timestamp"
                                       : !commit.line ? "commit"
                                                      : "data") +
                                      " field")
            .at_line(line_no + 1, 1);
    }
    if (ts.offset != 0 || ts.size != 8) {
        return Error(Errc::unsupported, "timestamp must be 8 bytes at offset 0").at_line(ts.line, 1);
    }
    if (commit.offset != 8 || (commit.size != 4 && commit.size != 8)) {
        return Error(Errc::unsupported, "commit must be 4 or 8 bytes at offset 8").at_line(commit.line, 1);
    }
    if (data.offset != 8 + commit.size) {
        return Error(Errc::unsupported, "data must follow the commit word").at_line(data.line, 1);
    }
    if (data.size > l.commit_mask) {
        return Error(Errc::unsupported, "data size does not fit the commit mask").at_line(data.line, 1);
    }
    l.long_size = static_cast<uint8_t>(commit.size);
    l.data_offset = static_cast<uint32_t>(data.offset);
    l.subbuf_size = static_cast<uint32_t>(data.offset + data.size);
    l.has_overwrite = overwrite.line != 0;
    return l;
}

}  // namespace ringscope
