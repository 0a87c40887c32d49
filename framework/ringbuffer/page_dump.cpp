#include "framework/ringbuffer/page_dump.hpp"

#include <cerrno>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "framework/io/trace_dat_types.hpp"

namespace ringscope::ringbuffer {
namespace {

void report(std::FILE* err, const std::string& path, int64_t base, Error e) {
    if (e.offset() != Error::kNoOffset) e.at_offset(base + e.offset());
    std::fprintf(err, "ringscope dump-pages: %s\n", e.in_file(path).to_string().c_str());
}

// Whether the sub-buffer loads and its records stay within its commit size (they may stop short:
// trailing padding is not handed out).
bool walks_cleanly(SubBuffer& sb, std::span<const uint8_t> page) {
    if (!sb.load(page)) return false;
    uint64_t ts = 0;
    uint64_t end = sb.start_of_data();
    for (const uint8_t* ev = sb.read_event(&ts); ev; ev = sb.next_event(&ts))
        end = static_cast<uint64_t>(sb.curr_offset()) + static_cast<uint64_t>(sb.curr_size());
    return sb.status() && end <= static_cast<uint64_t>(sb.start_of_data()) + sb.subbuffer_size();
}

Expected<SubBufferLayout> layout_for(size_t subbuf_size, unsigned long_size) {
    if (subbuf_size > UINT32_MAX)
        return Error(Errc::invalid_argument,
                     "sub-buffer size " + std::to_string(subbuf_size) + " out of range");
    if (long_size != 0 && long_size != 4 && long_size != 8)
        return Error(Errc::invalid_argument, "long size " + std::to_string(long_size) + " is not 4 or 8");
    return SubBufferLayout::make(SubBufferEndian::host,
                                 long_size == 4   ? SubBufferLongSize::four
                                 : long_size == 8 ? SubBufferLongSize::eight
                                                  : SubBufferLongSize::host,
                                 static_cast<uint32_t>(subbuf_size));
}

// The kernel's sub-buffers are whole pages, a power of two of them (buffer_subbuf_size_kb); 0 is the
// host's page size.
bool valid_subbuf_size(size_t subbuf_size, std::FILE* err) {
    if (subbuf_size == 0 ||
        (subbuf_size >= 4096 && subbuf_size <= (size_t{1} << 27) && (subbuf_size & (subbuf_size - 1)) == 0))
        return true;
    std::fprintf(err,
                 "ringscope dump-pages: sub-buffer size %zu: a power of two from 4096 to 134217728 bytes\n",
                 subbuf_size);
    return false;
}

}  // namespace

unsigned detect_long_size(const std::string& path, uint32_t subbuf_size) {
    constexpr int kPages = 16;  // sub-buffers with data looked at
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), std::fclose);
    if (!f) return 0;
    auto four = layout_for(subbuf_size, 4), eight = layout_for(subbuf_size, 8);
    if (!four || !eight || four->subbuf_size < eight->data_offset) return 0;
    SubBuffer sb4(*four), sb8(*eight);
    std::vector<uint8_t> buf(four->subbuf_size);
    bool fits4 = true, fits8 = true;
    int seen = 0;
    while (seen < kPages && std::fread(buf.data(), 1, buf.size(), f.get()) == buf.size()) {
        // A 64-bit commit word holds the size and two flags: its upper half is 0, or all ones when
        // the flags were stored sign-extended. On a 32-bit page those bytes are the first record's
        // header, which is 0 only for a record with its length in the next word and no delta.
        uint32_t upper = 0;
        std::memcpy(&upper, buf.data() + 12, 4);
        const bool ok4 = walks_cleanly(sb4, buf);
        const bool ok8 = (upper == 0 || upper == UINT32_MAX) && walks_cleanly(sb8, buf);
        // a sub-buffer without data says nothing
        if ((ok4 && sb4.subbuffer_size() == 0) || (ok8 && sb8.subbuffer_size() == 0)) continue;
        fits4 = fits4 && ok4;
        fits8 = fits8 && ok8;
        ++seen;
    }
    if (seen == 0 || fits4 == fits8) return 0;
    return fits4 ? 4 : 8;
}

int dump_pages(const std::string& path, size_t subbuf_size, std::FILE* out, std::FILE* err) {
    if (!valid_subbuf_size(subbuf_size, err)) return 2;
    auto layout = layout_for(subbuf_size, 0);
    if (!layout) {
        std::fprintf(err, "ringscope dump-pages: %s\n", layout.error().to_string().c_str());
        return 1;
    }
    return dump_pages(path, *layout, out, err);
}

int dump_pages(const std::string& path, size_t subbuf_size, unsigned long_size, std::FILE* out,
               std::FILE* err) {
    if (!valid_subbuf_size(subbuf_size, err)) return 2;
    if (long_size == 0) {
        auto host = layout_for(subbuf_size, 0);
        if (host && host->subbuf_size >= host->data_offset)
            long_size = detect_long_size(path, host->subbuf_size);
    }
    auto layout = layout_for(subbuf_size, long_size);
    if (!layout) {
        std::fprintf(err, "ringscope dump-pages: %s\n", layout.error().to_string().c_str());
        return 1;
    }
    return dump_pages(path, *layout, out, err);
}

int dump_pages(const std::string& path, const SubBufferLayout& layout, std::FILE* out, std::FILE* err) {
    if (layout.subbuf_size < layout.data_offset) {
        std::fprintf(err, "ringscope dump-pages: sub-buffer size %u is smaller than the header\n",
                     layout.subbuf_size);
        return 1;
    }
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), std::fclose);
    if (!f) {
        std::fprintf(err, "ringscope dump-pages: %s\n",
                     Error(Errc::io, std::strerror(errno)).in_file(path).to_string().c_str());
        return 1;
    }
    std::vector<uint8_t> buf(layout.subbuf_size);
    // A trace.dat is not a raw capture: its header would read as hundreds of broken sub-buffers.
    const size_t head = std::fread(buf.data(), 1, buf.size(), f.get());
    if (io::has_trace_dat_magic({buf.data(), head})) {
        std::fprintf(err,
                     "ringscope dump-pages: %s: a trace.dat file, not a raw trace_pipe_raw capture "
                     "(ringscope report reads it)\n",
                     path.c_str());
        return 1;
    }
    std::rewind(f.get());
    SubBuffer sb(layout);
    int64_t off = 0;
    unsigned long failed = 0;  // sub-buffers that did not load
    for (unsigned long page = 0;; ++page, off += layout.subbuf_size) {
        const size_t n = std::fread(buf.data(), 1, buf.size(), f.get());
        if (n == 0) break;
        if (n < buf.size()) {
            std::fprintf(out, "page %lu offset %lld: load failed\n", page, static_cast<long long>(off));
            report(err, path, off,
                   Error(Errc::truncated, "file ends " + std::to_string(n) + " bytes into a " +
                                              std::to_string(buf.size()) + "-byte sub-buffer")
                       .at_offset(0));
            ++failed;
            break;
        }
        if (auto st = sb.load(buf); !st) {
            std::fprintf(out, "page %lu offset %lld: load failed\n", page, static_cast<long long>(off));
            report(err, path, off, st.error());
            ++failed;
            continue;
        }
        std::fprintf(
            out, "page %lu offset %lld: timestamp:%llu subbuffer_size:%d start_of_data:%d missed_events:%d\n",
            page, static_cast<long long>(off), static_cast<unsigned long long>(sb.subbuf_timestamp()),
            sb.subbuffer_size(), sb.start_of_data(), sb.missed_events());
        int i = 0;
        uint64_t ts = 0;
        for (const uint8_t* ev = sb.read_event(&ts); ev; ev = sb.next_event(&ts)) {
            std::fprintf(out, " event %3d ts:%lld\trecord_size:%d size:%d\tindex:%d offset:%d\n", i++,
                         static_cast<long long>(ts), sb.curr_size(), sb.event_size(), sb.curr_index(),
                         sb.curr_offset());
        }
        if (!sb.status()) {
            report(err, path, off, sb.status().error());
            ++failed;  // a bad record fails the run as a page that did not load does
        }
        std::fprintf(out, "page %lu: %d events\n", page, i);
    }
    if (std::ferror(f.get())) {
        std::fprintf(err, "ringscope dump-pages: %s\n",
                     Error(Errc::io, "read error").in_file(path).at_offset(off).to_string().c_str());
        return 1;
    }
    return failed ? 1 : 0;
}

}  // namespace ringscope::ringbuffer
