#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "ipt/errors.hpp"
#include "ipt/pages_behind.hpp"
#include "ipt/ptdump.hpp"
#include "ipt/trace_file.hpp"

namespace ringscope::ipt {
namespace {

// ptdump's FILE[:FROM[-TO]] (strtoull base 0); a suffix that does not parse is part of the name.
int split_range(std::string& file, uint64_t& offset, uint64_t& size) {
    offset = size = 0;
    auto colon = file.rfind(':');
    if (colon == std::string::npos) return 0;
    const char* arg = file.c_str() + colon + 1;
    if (!*arg) return 0;
    char* rest = nullptr;
    errno = 0;
    uint64_t begin = std::strtoull(arg, &rest, 0);
    if (errno) return 0;
    if (*rest == '\0') {
        offset = begin;
        file.resize(colon);
        return 0;
    }
    if (*rest != '-') return 0;
    uint64_t end = std::strtoull(rest + 1, &rest, 0);
    if (errno || *rest) return 0;
    if (end <= begin) return -pte_invalid;
    offset = begin;
    size = end - begin;
    file.resize(colon);
    return 0;
}

bool get_uint(uint64_t& value, uint64_t max, const std::string& option, const std::string* arg,
              std::FILE* err) {
    if (!arg || arg->empty() || arg->rfind("--", 0) == 0) {
        std::fprintf(err, "ringscope ipt dump: %s: missing argument.\n", option.c_str());
        return false;
    }
    char* rest = nullptr;
    errno = 0;
    value = std::strtoull(arg->c_str(), &rest, 0);
    if (errno || *rest) {
        std::fprintf(err, "ringscope ipt dump: %s: bad argument: %s.\n", option.c_str(), arg->c_str());
        return false;
    }
    if (value > max) {
        std::fprintf(err, "ringscope ipt dump: %s: value too big: %s.\n", option.c_str(), arg->c_str());
        return false;
    }
    return true;
}

void help(std::FILE* out) {
    std::fputs(
        "usage: ringscope ipt dump [<options>] <ptfile>[:<from>[-<to>]]\n\n"
        "options:\n"
        "  --help|-h                 this text.\n"
        "  --no-sync                 don't try to sync to the first PSB, assume a valid\n"
        "                            sync point at the beginning of the trace.\n"
        "  --quiet                   don't print anything but errors.\n"
        "  --no-pad                  don't show PAD packets.\n"
        "  --no-timing               don't show timing packets.\n"
        "  --no-cyc                  don't show CYC packets and ignore them when tracking time.\n"
        "  --no-offset               don't show the offset as the first column.\n"
        "  --raw                     show raw packet bytes.\n"
        "  --lastip                  show last IP updates on packets with IP payloads.\n"
        "  --exec-mode               show the current execution mode on mode.exec packets.\n"
        "  --time                    show the estimated TSC on timing packets.\n"
        "  --tcal                    show time calibration information.\n"
        "  --time-delta              show timing information as delta.\n"
        "  --no-tcal                 skip timing calibration.\n"
        "  --no-wall-clock           suppress the no-time error and print relative time.\n"
        "  --keep-tcal-on-ovf        keep the time calibration across overflows.\n"
        "  --cpu none|f/m[/s]        decode for this cpu (family/model[/stepping]).\n"
        "  --mtc-freq <n>            set the MTC frequency (IA32_RTIT_CTL[17:14]) to <n>.\n"
        "  --nom-freq <n>            set the nominal frequency (MSR_PLATFORM_INFO[15:8]) to <n>.\n"
        "  --cpuid-0x15.eax          set the value of cpuid[0x15].eax.\n"
        "  --cpuid-0x15.ebx          set the value of cpuid[0x15].ebx.\n"
        "  -j|--jobs <n>             decode PSB segments on <n> threads (same output; serial\n"
        "                            with --no-sync, --lastip, --time, --tcal).\n",
        out);
}

// ptdump's options without argument, each setting a PtdumpOptions flag.
struct Flag {
    const char* name;
    bool PtdumpOptions::*member;
    bool value;
};
constexpr Flag kFlags[] = {
    {"--no-sync", &PtdumpOptions::no_sync, true},
    {"--quiet", &PtdumpOptions::quiet, true},
    {"--no-pad", &PtdumpOptions::no_pad, true},
    {"--no-timing", &PtdumpOptions::no_timing, true},
    {"--no-cyc", &PtdumpOptions::no_cyc, true},
    {"--no-offset", &PtdumpOptions::show_offset, false},
    {"--raw", &PtdumpOptions::show_raw_bytes, true},
    {"--lastip", &PtdumpOptions::show_last_ip, true},
    {"--exec-mode", &PtdumpOptions::show_exec_mode, true},
    {"--time-delta", &PtdumpOptions::show_time_as_delta, true},
    {"--no-tcal", &PtdumpOptions::no_tcal, true},
    {"--no-wall-clock", &PtdumpOptions::no_wall_clock, true},
    {"--keep-tcal-on-ovf", &PtdumpOptions::keep_tcal_on_ovf, true},
};

// What the command line asks for.
struct Args {
    PtdumpOptions options;
    Config config;
    unsigned threads = 1;
    std::string file;
    bool have_file = false;
};

// An option that takes an argument (next, which may be missing): 1 when it took it, 0 when a is
// no such option, -1 after reporting an error.
int parse_value_option(const std::string& a, const std::string* next, Args& args, std::FILE* err) {
    uint64_t v = 0;
    Config& config = args.config;
    if (a == "--cpu") {
        if (!next) {
            std::fprintf(err, "ringscope ipt dump: --cpu: missing argument.\n");
            return -1;
        }
        if (*next == "none") {
            config.cpu = Cpu{};
        } else if (cpu_parse(config.cpu, next->c_str()) < 0) {
            std::fprintf(err, "ringscope ipt dump: cpu must be specified as f/m[/s]\n");
            return -1;
        }
    } else if (a == "-j" || a == "--jobs") {
        if (!get_uint(v, 1024, a, next, err)) return -1;
        if (v == 0) {
            std::fprintf(err, "ringscope ipt dump: %s: must be at least 1.\n", a.c_str());
            return -1;
        }
        args.threads = static_cast<unsigned>(v);
    } else if (a == "--mtc-freq" || a == "--nom-freq") {
        if (!get_uint(v, 0xff, a, next, err)) return -1;
        (a == "--mtc-freq" ? config.mtc_freq : config.nom_freq) = static_cast<uint8_t>(v);
    } else if (a == "--cpuid-0x15.eax" || a == "--cpuid-0x15.ebx") {
        if (!get_uint(v, 0xffffffffu, a, next, err)) return -1;
        (a == "--cpuid-0x15.eax" ? config.cpuid_0x15_eax : config.cpuid_0x15_ebx) = static_cast<uint32_t>(v);
    } else {
        return 0;
    }
    return 1;
}

// The options up to the trace file into args: -1 to go on, else the exit code (0 after --help).
int parse_args(const std::vector<std::string>& argv, Args& args, std::FILE* out, std::FILE* err) {
    PtdumpOptions& options = args.options;
    for (size_t i = 0; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        const std::string* next = i + 1 < argv.size() ? &argv[i + 1] : nullptr;
        if (a.empty() || a[0] != '-') {
            if (i + 1 != argv.size()) {
                std::fprintf(err, "ringscope ipt dump: [<options>] <ptfile>.  Use --help or -h for help.\n");
                return 2;
            }
            args.file = a;
            args.have_file = true;
            return -1;
        }
        if (a == "-h" || a == "--help") {
            help(out);
            return 0;
        }
        const Flag* flag = nullptr;
        for (const Flag& f : kFlags)
            if (a == f.name) flag = &f;
        if (flag) {
            options.*flag->member = flag->value;
        } else if (a == "--time" || a == "--tcal") {
            if (a == "--time" ? options.show_tcal : options.show_time) {
                std::fprintf(err, "ringscope ipt dump: specify either --time or --tcal.\n");
                return 2;
            }
            options.track_time = true;
            (a == "--time" ? options.show_time : options.show_tcal) = true;
        } else if (int took = parse_value_option(a, next, args, err); took != 0) {
            if (took < 0) return 2;
            ++i;
        } else {
            std::fprintf(err, "ringscope ipt dump: unknown option: %s.\n", a.c_str());
            return 2;
        }
    }
    return -1;
}

}  // namespace

int ptdump_main(const std::vector<std::string>& argv, std::FILE* out, std::FILE* err) {
    Args args;
    if (int status = parse_args(argv, args, out, err); status >= 0) return status;
    Config& config = args.config;
    std::string& file = args.file;
    if (!args.have_file) {
        std::fprintf(err, "ringscope ipt dump: No processor trace file specified.\n");
        return 2;
    }
    uint64_t offset = 0, size = 0;
    if (split_range(file, offset, size) < 0) {
        std::fprintf(err, "ringscope ipt dump: bad file %s: %s.\n", file.c_str(),
                     pt_error_string(-pte_invalid));
        return 2;
    }
    if (config.cpu.vendor != CpuVendor::unknown) {
        int e = cpu_errata(config.errata, config.cpu);
        if (e < 0) std::fprintf(out, "[0: failed to determine errata: %s]\n", pt_error_string(e));
    }
    auto bytes = TraceBytes::map(file, offset, size);
    if (!bytes) {
        const Error& e = bytes.error();
        std::fprintf(err, "ringscope ipt dump: %s: %s\n", e.file().c_str(), e.message().c_str());
        return 1;
    }
    config.begin = bytes->begin();
    config.end = bytes->end();
    PagesBehind pages(*bytes);
    int status = ptdump(config, args.options, out, args.threads, 0, &pages);
    std::fflush(out);
    if (pages.failed()) {
        std::fprintf(err, "ringscope ipt dump: %s\n", pages.error().to_string().c_str());
        return 1;
    }
    return status < 0 ? 1 : 0;
}

}  // namespace ringscope::ipt
