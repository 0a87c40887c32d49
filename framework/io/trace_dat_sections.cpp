// TraceDatParser: v7 sections: headers, bodies (decompressed), the STRINGS sections.
#include "framework/io/trace_dat_parser.hpp"

#include <cstring>

namespace ringscope::io::detail {

Expected<std::string> TraceDatParser::section_payload(uint64_t off, uint16_t id, const char* what) {
    auto body = section_body(off, id, what);
    if (!body) return std::move(body).error();
    if (body->decompressed) return std::move(body->decompressed_bytes);
    return std::string(reinterpret_cast<const char*>(body->data.data()), body->data.size());
}

Expected<TraceDatParser::Body> TraceDatParser::section_body(uint64_t off, int expected_id, const char* what,
                                                            SectionHeader* out,
                                                            std::unique_ptr<Decompressor>* dec) {
    if (off > f_.size() || f_.size() - off < 16) {
        return Error(Errc::truncated, std::string(what) + ": section header past the end of the file")
            .at_offset(static_cast<int64_t>(off));
    }
    std::vector<uint8_t> scratch;
    auto hb = f_.read(off, 16, scratch);
    if (!hb) return std::move(hb).error();
    SectionHeader h{load_endian<uint16_t>(hb->data(), s_.big), load_endian<uint16_t>(hb->data() + 2, s_.big),
                    load_endian<uint32_t>(hb->data() + 4, s_.big),
                    load_endian<uint64_t>(hb->data() + 8, s_.big)};
    if (expected_id >= 0 && h.id != expected_id) {
        return Error(Errc::corrupt, std::string(what) + ": expected section id " +
                                        std::to_string(expected_id) + ", found " + std::to_string(h.id))
            .at_offset(static_cast<int64_t>(off));
    }
    if (h.size > f_.size() - off - 16) {
        return Error(Errc::truncated, std::string(what) + ": section of " + std::to_string(h.size) +
                                          " bytes runs past the end of the file")
            .at_offset(static_cast<int64_t>(off));
    }
    if (out) *out = h;
    Body body;
    body.base = off + 16;
    if (!(h.flags & kSectionCompressed)) {
        auto b = f_.read(off + 16, static_cast<size_t>(h.size), body.owned);
        if (!b) return std::move(b).error();
        body.data = *b;
        return Expected<Body>(std::move(body));
    }
    if (s_.compression == Compression::none) {
        return Error(Errc::corrupt, std::string(what) + ": compressed section in a file without compression")
            .at_offset(static_cast<int64_t>(off));
    }
    if (h.size < 8) {
        return Error(Errc::corrupt, std::string(what) + ": compressed section too short for its sizes")
            .at_offset(static_cast<int64_t>(off));
    }
    auto sb = f_.read(off + 16, 8, scratch);
    if (!sb) return std::move(sb).error();
    const uint32_t zsize = load_endian<uint32_t>(sb->data(), s_.big);
    const uint32_t usize = load_endian<uint32_t>(sb->data() + 4, s_.big);
    if (zsize > h.size - 8) {
        return Error(Errc::corrupt, std::string(what) + ": compressed size " + std::to_string(zsize) +
                                        " larger than the section")
            .at_offset(static_cast<int64_t>(off + 16));
    }
    if (usize > kMaxSectionSize || !plausible_expansion(zsize, usize)) {
        return Error(Errc::corrupt,
                     std::string(what) + ": uncompressed size " + std::to_string(usize) + " too large")
            .at_offset(static_cast<int64_t>(off + 16));
    }
    auto zb = f_.read(off + 24, zsize, scratch);
    if (!zb) return std::move(zb).error();
    std::unique_ptr<Decompressor>& d = dec ? *dec : decomp_;
    if (!d) d = Decompressor::create(s_.compression);
    // Sizes no real section reaches are decompressed as the output comes, so a size the data
    // does not back fails before it is allocated.
    Status st = Status::success();
    if (usize <= kTrustedSectionSize) {
        body.decompressed_bytes.resize(usize);
        st = d->decompress(
            *zb, std::span<uint8_t>(reinterpret_cast<uint8_t*>(body.decompressed_bytes.data()), usize));
    } else {
        st = d->decompress_growing(*zb, usize, body.decompressed_bytes);
    }
    if (!st) {
        return Error(Errc::decompress, std::string(what) + ": " + st.error().message())
            .at_offset(static_cast<int64_t>(off + 16));
    }
    body.base = off;
    body.decompressed = true;
    return Expected<Body>(std::move(body));
}

Status TraceDatParser::section_header_at(uint64_t off, OptionId expected, const char* what,
                                         SectionHeader& h) {
    if (off > f_.size() || f_.size() - off < 16) {
        return Error(Errc::corrupt, std::string(what) + ": section offset " + std::to_string(off) +
                                        " past the end of the file")
            .at_offset(static_cast<int64_t>(off));
    }
    std::vector<uint8_t> scratch;
    auto hb = f_.read(off, 16, scratch);
    if (!hb) return std::move(hb).error();
    h = SectionHeader{
        load_endian<uint16_t>(hb->data(), s_.big), load_endian<uint16_t>(hb->data() + 2, s_.big),
        load_endian<uint32_t>(hb->data() + 4, s_.big), load_endian<uint64_t>(hb->data() + 8, s_.big)};
    if (h.id != static_cast<uint16_t>(expected)) {
        return Error(Errc::corrupt, std::string(what) + ": section at its offset has id " +
                                        std::to_string(h.id) + ", expected " +
                                        std::to_string(static_cast<int>(expected)))
            .at_offset(static_cast<int64_t>(off));
    }
    return {};
}

Status TraceDatParser::scan_sections() {
    uint64_t off = header_end_;
    std::vector<uint8_t> scratch;
    while (off <= f_.size() && f_.size() - off >= 16) {
        auto hb = f_.read(off, 16, scratch);
        if (!hb) return std::move(hb).error();
        SectionInfo si;
        si.id = load_endian<uint16_t>(hb->data(), s_.big);
        si.flags = load_endian<uint16_t>(hb->data() + 2, s_.big);
        const uint32_t desc = load_endian<uint32_t>(hb->data() + 4, s_.big);
        si.size = load_endian<uint64_t>(hb->data() + 8, s_.big);
        si.offset = off;
        if (si.size > f_.size() - off - 16) break;
        if (si.id == static_cast<uint16_t>(OptionId::strings)) {
            auto body = section_body(off, -1, "STRINGS section");
            if (!body) return std::move(body).error();
            const auto bytes = body->bytes();
            strings_.insert(strings_.end(), bytes.begin(), bytes.end());
        }
        descs_.push_back(desc);
        s_.sections.push_back(std::move(si));
        off += 16 + s_.sections.back().size;
    }
    for (size_t i = 0; i < s_.sections.size(); ++i) {
        const uint32_t d = descs_[i];
        if (d < strings_.size()) {
            const char* p = reinterpret_cast<const char*>(strings_.data()) + d;
            s_.sections[i].description.assign(p, strnlen(p, strings_.size() - d));
        }
    }
    return {};
}

}  // namespace ringscope::io::detail
