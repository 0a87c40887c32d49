#include "ipt/sync_report.hpp"

#include <cerrno>
#include <cinttypes>
#include <cstddef>
#include <cstdlib>

#include "ipt/errors.hpp"
#include "ipt/pages_behind.hpp"
#include "ipt/query_decoder.hpp"
#include "ipt/trace_file.hpp"

namespace ringscope::ipt {
namespace {

void print_success(std::FILE* out, int status, uint64_t ip) {
    if (status & pts_ip_suppressed)
        std::fprintf(out, "status=0x%x ip=suppressed\n", static_cast<unsigned>(status));
    else
        std::fprintf(out, "status=0x%x ip=0x%" PRIx64 "\n", static_cast<unsigned>(status), ip);
}

// Repeats one sync direction until pte_eos. Both directions move strictly (see QueryDecoder); a
// position that does not move on ends the loop whatever the status, so that a decoder defect
// cannot hang the command (a fuzzed stream once made sync backward return one PSB forever).
template <class Sync>
uint64_t sync_loop(const Config& config, const char* name, bool forward, Sync sync, std::FILE* out,
                   PagesBehind* pages) {
    QueryDecoder decoder(config);
    bool have_last = false;
    uint64_t last = 0;
    for (;;) {
        uint64_t ip = 0;
        int status = sync(decoder, &ip);
        if (status == -pte_eos) break;
        uint64_t offset = 0;
        bool have_offset = decoder.get_sync_offset(offset) == 0;
        if (pages && have_offset && !pages->at(offset)) return decoder.sync_work();
        if (status >= 0) {
            std::fprintf(out, "%s offset=0x%" PRIx64 " ", name, offset);
            print_success(out, status, ip);
        } else if (have_offset) {
            std::fprintf(out, "%s error=%s offset=0x%" PRIx64 "\n", name, pt_error_name(status), offset);
        } else {
            std::fprintf(out, "%s error=%s\n", name, pt_error_name(status));
            break;
        }
        if (have_last && (forward ? offset <= last : offset >= last)) break;
        have_last = true;
        last = offset;
    }
    std::fprintf(out, "%s error=pte_eos\n", name);
    return decoder.sync_work();
}

bool parse_offsets(const std::string& text, std::vector<uint64_t>& out) {
    size_t pos = 0;
    while (pos <= text.size()) {
        size_t comma = text.find(',', pos);
        std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        if (item.empty() || item[0] == '-') return false;
        char* rest = nullptr;
        errno = 0;
        uint64_t v = std::strtoull(item.c_str(), &rest, 0);
        if (errno || *rest) return false;
        out.push_back(v);
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    return true;
}

}  // namespace

uint64_t sync_report(const Config& config, const std::vector<uint64_t>& at, std::FILE* out,
                     PagesBehind* forward, PagesBehind* backward) {
    uint64_t work = sync_loop(
        config, "sync-forward", true, [](QueryDecoder& d, uint64_t* ip) { return d.sync_forward(ip); }, out,
        forward);
    if (forward && forward->failed()) return work;
    work += sync_loop(
        config, "sync-backward", false, [](QueryDecoder& d, uint64_t* ip) { return d.sync_backward(ip); },
        out, backward);
    if (backward && backward->failed()) return work;
    for (uint64_t offset : at) {
        QueryDecoder decoder(config);
        uint64_t ip = 0;
        int status = decoder.sync_set(&ip, offset);
        std::fprintf(out, "sync-set offset=0x%" PRIx64 " -> ", offset);
        if (status < 0)
            std::fprintf(out, "error=%s\n", pt_error_name(status));
        else
            print_success(out, status, ip);
        work += decoder.sync_work();
    }
    return work;
}

int sync_main(const std::vector<std::string>& args, std::FILE* out, std::FILE* err) {
    std::vector<uint64_t> at;
    std::string file;
    bool have_file = false;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--at" || a.rfind("--at=", 0) == 0) {
            std::string value;
            if (a == "--at") {
                if (i + 1 >= args.size()) {
                    std::fprintf(err, "ringscope ipt sync: --at: missing argument\n");
                    return 2;
                }
                value = args[++i];
            } else {
                value = a.substr(5);
            }
            if (!parse_offsets(value, at)) {
                std::fprintf(err, "ringscope ipt sync: --at: bad offset list: %s\n", value.c_str());
                return 2;
            }
        } else if (a == "-h" || a == "--help") {
            std::fprintf(out, "usage: ringscope ipt sync [--at OFF[,OFF...]] FILE.pt\n");
            return 0;
        } else if (!a.empty() && a[0] == '-') {
            std::fprintf(err, "ringscope ipt sync: unknown option: %s\n", a.c_str());
            return 2;
        } else if (have_file) {
            std::fprintf(err, "ringscope ipt sync: more than one file: %s\n", a.c_str());
            return 2;
        } else {
            file = a;
            have_file = true;
        }
    }
    if (!have_file) {
        std::fprintf(err, "usage: ringscope ipt sync [--at OFF[,OFF...]] FILE.pt\n");
        return 2;
    }
    auto bytes = TraceBytes::map(file);
    if (!bytes) {
        std::fprintf(err, "ringscope ipt sync: %s: %s\n", file.c_str(), bytes.error().message().c_str());
        return 1;
    }
    Config config;
    config.begin = bytes->begin();
    config.end = bytes->end();
    PagesBehind forward(*bytes), backward(*bytes, PagesBehind::Direction::backward);
    sync_report(config, at, out, &forward, &backward);
    std::fflush(out);
    for (const PagesBehind* p : {&forward, &backward}) {
        if (p->failed()) {
            std::fprintf(err, "ringscope ipt sync: %s\n", p->error().to_string().c_str());
            return 1;
        }
    }
    return 0;
}

}  // namespace ringscope::ipt
