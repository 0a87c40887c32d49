#include "test_trace.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "framework/engine/trace_file.hpp"
#include "framework/io/trace_dat_reader.hpp"
#include "framework/io/trace_dat_writer.hpp"

namespace ringscope::engine::test {

namespace {
void put32(std::vector<uint8_t>& p, uint32_t off, uint32_t v) {
    std::memcpy(p.data() + off, &v, 4);
}
void put64(std::vector<uint8_t>& p, uint32_t off, uint64_t v) {
    std::memcpy(p.data() + off, &v, 8);
}

struct TempDir {
    std::filesystem::path dir;
    TempDir() {
        char tmpl[] = "/tmp/ringscope-engine-test.XXXXXX";
        if (!mkdtemp(tmpl)) throw std::runtime_error("mkdtemp");
        dir = tmpl;
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
    }
};
}  // namespace

std::string data_path(const std::string& rel) {
    return std::string(RINGSCOPE_TEST_DATA_DIR) + "/" + rel;
}

std::unique_ptr<TraceFile> open_file(const std::string& path) {
    auto f = TraceFile::open(path, OpenOptions{});
    if (!f) throw std::runtime_error(f.error().to_string());
    return std::move(*f);
}

PageBuilder::PageBuilder(uint64_t page_ts) : page_(4096, 0), last_ts_(page_ts) {
    put64(page_, 0, page_ts);
}

PageBuilder& PageBuilder::event(uint64_t ts, uint32_t tag, uint32_t words) {
    uint64_t delta = ts - last_ts_;
    if (delta >= (uint64_t{1} << 27)) {  // a time-extend record carries the high bits
        put32(page_, pos_, 30u | static_cast<uint32_t>((delta & ((1u << 27) - 1)) << 5));
        put32(page_, pos_ + 4, static_cast<uint32_t>(delta >> 27));
        pos_ += 8;
        delta = 0;
    }
    put32(page_, pos_, words | static_cast<uint32_t>(delta << 5));
    put32(page_, pos_ + 4, tag);
    pos_ += 4 + 4 * words;
    last_ts_ = ts;
    return *this;
}

PageBuilder& PageBuilder::missed(int64_t count) {
    missed_ = count;
    return *this;
}

PageBuilder& PageBuilder::raw_commit(uint64_t commit) {
    has_raw_commit_ = true;
    raw_commit_ = commit;
    return *this;
}

std::vector<uint8_t> PageBuilder::build() const {
    std::vector<uint8_t> p = page_;
    uint64_t commit = pos_ - 16;
    if (missed_ != 0) {
        commit |= uint64_t{1} << 31;
        if (missed_ > 0) {
            commit |= uint64_t{1} << 30;
            put64(p, pos_, static_cast<uint64_t>(missed_));
        }
    }
    put64(p, 8, has_raw_commit_ ? raw_commit_ : commit);
    return p;
}

std::string write_trace(const std::vector<std::vector<std::vector<uint8_t>>>& cpus, bool zstd) {
    static TempDir tmp;
    static std::atomic<int> n{0};
    const std::string path = (tmp.dir / ("t" + std::to_string(n++) + ".dat")).string();
    auto base = io::TraceDatReader::open(data_path("traces/basic.dat"));
    if (!base) throw std::runtime_error(base.error().to_string());
    io::TraceMetadata md = base->metadata();
    md.options.cpustats.clear();
    md.options.cpu_count = static_cast<uint32_t>(cpus.size());
    md.cpu_count = static_cast<uint32_t>(cpus.size());
    io::WriterConfig cfg;
    cfg.compression = zstd ? io::Compression::zstd : io::Compression::none;
    io::BufferSpec top;
    top.clock = "local";
    for (size_t i = 0; i < cpus.size(); ++i) top.cpus.push_back(static_cast<uint32_t>(i));
    auto w = io::TraceDatWriter::create(path, cfg, md, {top});
    if (!w) throw std::runtime_error(w.error().to_string());
    for (const auto& pages : cpus) {
        if (auto st = (*w)->begin_cpu(); !st) throw std::runtime_error(st.error().to_string());
        for (const auto& p : pages)
            if (auto st = (*w)->write_pages(p); !st) throw std::runtime_error(st.error().to_string());
        if (auto st = (*w)->end_cpu(); !st) throw std::runtime_error(st.error().to_string());
    }
    if (auto st = (*w)->finish(); !st) throw std::runtime_error(st.error().to_string());
    return path;
}

}  // namespace ringscope::engine::test
