#include "framework/ringbuffer/page_dump.hpp"

#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include "framework/io/trace_dat_types.hpp"

namespace ringscope::ringbuffer {
namespace {

void report(std::FILE* err, const std::string& path, int64_t base, Error e) {
    if (e.offset() != Error::kNoOffset) e.at_offset(base + e.offset());
    std::fprintf(err, "ringscope dump-pages: %s\n", e.in_file(path).to_string().c_str());
}

}  // namespace

int dump_pages(const std::string& path, size_t subbuf_size, std::FILE* out, std::FILE* err) {
    // The kernel's sub-buffers are whole pages, a power of two of them (buffer_subbuf_size_kb).
    if (subbuf_size != 0 &&
        (subbuf_size < 4096 || subbuf_size > (size_t{1} << 27) || (subbuf_size & (subbuf_size - 1)) != 0)) {
        std::fprintf(
            err, "ringscope dump-pages: sub-buffer size %zu: a power of two from 4096 to 134217728 bytes\n",
            subbuf_size);
        return 2;
    }
    auto layout = SubBufferLayout::make(SubBufferEndian::host, SubBufferLongSize::host,
                                        static_cast<uint32_t>(subbuf_size));
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
        if (!sb.status()) report(err, path, off, sb.status().error());
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
