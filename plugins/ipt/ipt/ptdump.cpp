#include "ipt/ptdump.hpp"

#include <cstdlib>
#include <string>

#include "ipt/psb_parts.hpp"
#include "ipt/ptdump_printer.hpp"

namespace ringscope::ipt {
namespace {

// Input bytes per part with -j: its text stays in memory until written.
constexpr uint64_t kDumpPartBytes = 256 << 10;

}  // namespace

int ptdump(const Config& config, const PtdumpOptions& options, std::FILE* out, unsigned threads,
           uint64_t part_bytes, PagesBehind* pages) {
    // Last-IP and time tracking carry state from one PSB segment to the next: serial only.
    if (threads <= 1 || options.no_sync || options.show_last_ip || options.track_time) {
        PtdumpPrinter dumper(config, options, out, pages);
        return dumper.run();
    }
    struct Part {
        std::string text;
        int status = 0;
    };
    int status = 0;
    decode_psb_parts<Part>(
        config, threads, part_bytes ? part_bytes : kDumpPartBytes,
        [&](Part& part, PacketDecoder& decoder, uint64_t stop) -> uint64_t {
            char* buf = nullptr;
            size_t len = 0;
            std::FILE* text = open_memstream(&buf, &len);
            if (!text) {
                part.status = -pte_nomem;
                return static_cast<uint64_t>(config.end - config.begin);
            }
            PtdumpPrinter dumper(config, options, text);
            uint64_t reached = dumper.run_until(decoder, stop);
            std::fclose(text);
            part.text.assign(buf, len);
            std::free(buf);
            part.status = dumper.status();
            return reached;
        },
        [&](Part& part) {
            std::fwrite(part.text.data(), 1, part.text.size(), out);
            if (part.status < 0 && status == 0) status = part.status;
        },
        pages);
    return status;
}

}  // namespace ringscope::ipt
