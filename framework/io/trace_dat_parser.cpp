// TraceDatParser: the file header, and the checks of the buffers' CPU data once they are known.
#include "framework/io/trace_dat_parser.hpp"

#include <ringscope/text_escape.hpp>

#include <cstring>

namespace ringscope::io::detail {

namespace {

constexpr uint8_t kMagic[3] = {0x17, 0x08, 0x44};

}  // namespace

Status TraceDatParser::run() {
    if (auto st = parse_file_header(); !st) return st;
    if (s_.version >= 7) return parse_v7();
    return parse_v6();
}

Status TraceDatParser::parse_file_header() {
    FileCursor c(f_, 0, false, "file header");
    auto magic = c.bytes(3);
    if (!magic || std::memcmp(magic->data(), kMagic, 3) != 0) {
        return Error(Errc::bad_magic, "not a trace-cmd trace.dat file (bad magic)").at_offset(0);
    }
    auto tracing = c.bytes(7);
    if (!tracing || std::memcmp(tracing->data(), "tracing", 7) != 0) {
        return Error(Errc::bad_magic, "not a trace-cmd trace.dat file (no \"tracing\" after the magic)")
            .at_offset(3);
    }
    auto ver = c.cstring();
    if (!ver) return std::move(ver).error();
    const std::string vs = std::string(*ver);
    if (vs != "6" && vs != "7") {
        return Error(Errc::bad_version,
                     "unsupported file version \"" + quoted_for_message(vs) + "\" (this build reads 6 and 7)")
            .at_offset(10);
    }
    s_.version = vs == "6" ? 6 : 7;
    auto endian = c.read<uint8_t>();
    if (!endian) return std::move(endian).error();
    if (*endian > 1)
        return Error(Errc::corrupt, "bad endianness flag " + std::to_string(*endian)).at_offset(12);
    s_.big = *endian == 1;
    auto ls = c.read<uint8_t>();
    if (!ls) return std::move(ls).error();
    if (*ls != 4 && *ls != 8)
        return Error(Errc::corrupt, "bad long size " + std::to_string(*ls)).at_offset(13);
    s_.long_size = *ls;
    FileCursor c2(f_, c.offset(), s_.big, "file header");
    auto ps = c2.read<uint32_t>();
    if (!ps) return std::move(ps).error();
    if (*ps == 0 || *ps > kMaxPageSize || (*ps & (*ps - 1)) != 0) {
        return Error(Errc::corrupt, "bad page size " + std::to_string(*ps)).at_offset(14);
    }
    s_.page_size = *ps;
    if (s_.version >= 7) {
        auto zname = c2.cstring();
        if (!zname) return std::move(zname).error();
        auto comp = parse_compression(std::string(*zname));
        if (!comp) return std::move(comp).error().at_offset(18);
        s_.compression = *comp;
        auto zver = c2.cstring();
        if (!zver) return std::move(zver).error();
        s_.zversion = std::string(*zver);
        auto opt = c2.read<uint64_t>();
        if (!opt) return std::move(opt).error();
        options_start_ = *opt;
    }
    header_end_ = c2.offset();
    return {};
}

Status TraceDatParser::check_cpu_data(const BufferInfo& b) {
    for (const auto& cpu : b.cpus) {
        const uint64_t need = b.compressed ? 4 : cpu.size;
        if (cpu.size == 0 && !b.compressed) continue;
        if (cpu.offset > f_.size() || need > f_.size() - cpu.offset) {
            return Error(Errc::truncated, "buffer \"" + b.name + "\" CPU " + std::to_string(cpu.cpu) +
                                              ": data of " + std::to_string(cpu.size) + " bytes at " +
                                              std::to_string(cpu.offset) +
                                              " runs past the end of the file (truncated?)")
                .at_offset(static_cast<int64_t>(cpu.offset));
        }
    }
    return {};
}

Status TraceDatParser::reserve_pages() {
    for (size_t bi = 0; bi < s_.buffers.size(); ++bi) {
        const BufferInfo& b = s_.buffers[bi];
        for (size_t ci = 0; ci < b.cpus.size(); ++ci) {
            if (b.latency || b.cpus[ci].size == 0) continue;
            if (!s_.reserve_reading(bi, ci, b.page_size)) {
                return Error(Errc::corrupt, "buffer \"" + b.name + "\" CPU " +
                                                std::to_string(b.cpus[ci].cpu) + ": a " +
                                                std::to_string(b.page_size) + "-byte page for each of " +
                                                std::to_string(b.cpus.size()) + " CPUs needs more than " +
                                                std::to_string(kMaxReadingMemory >> 20) + " MiB")
                    .at_offset(static_cast<int64_t>(b.cpus[ci].offset));
            }
        }
    }
    return {};
}

}  // namespace ringscope::io::detail
