#include "ipt/flow_options.hpp"

#include <cstdlib>

#include "ipt/errors.hpp"
#include "ipt/symbols.hpp"

namespace ringscope::ipt {
namespace {

// Options that take a value: 0 taken, 2 usage error (printed).
int value_option(const std::string& a, const std::string& v, FlowOptions& o, FlowInputs& in, std::FILE* err) {
    uint64_t n = 0;
    auto bad = [&](const char* what) {
        std::fprintf(err, "ringscope ipt flow: %s: bad %s: %s\n", a.c_str(), what, v.c_str());
        return 2;
    };
    if (a == "--pt") {
        if (in.have_pt) return bad("second trace");
        std::string path;
        uint64_t addr = 0;
        // FILE[:FROM[-TO]] reads like a raw section without the address.
        if (Image::parse_raw(v + ":0", path, in.pt_offset, in.pt_size, addr).ok()) in.pt = path;
        in.have_pt = true;
    } else if (int rc = image_option("ringscope ipt flow", a, v, in.image, err); rc >= 0) {
        return rc;
    } else if (a == "--cpu") {
        if (v == "none") {
            o.config.cpu = Cpu{};
            o.config.errata = Errata{};
        } else {
            if (cpu_parse(o.config.cpu, v.c_str()) < 0) return bad("cpu");
            o.config.errata = Errata{};
            o.bad_cpu = cpu_errata(o.config.errata, o.config.cpu) < 0;
        }
    } else if (a == "--compat") {
        // libipt 2.0.5's (Debian 12's) decoder: no TRIG, CFE, EVD; its order of power events.
        if (v != "2.0.5" && v != "master") return bad("libipt version");
        o.config.packets = v == "master" ? PacketSet::full : PacketSet::libipt_2_0_5;
    } else if (!parse_number(v, n)) {
        return bad("number");
    } else if (a == "-j" || a == "--jobs") {
        if (n < 1 || n > 256) return bad("number of threads");
        o.jobs = static_cast<unsigned>(n);
    } else if (a == "--part-bytes") {
        o.part_bytes = n;
    } else if (a == "--mtc-freq") {
        o.config.mtc_freq = static_cast<uint8_t>(n);
    } else if (a == "--nom-freq") {
        o.config.nom_freq = static_cast<uint8_t>(n);
    } else if (a == "--cpuid-0x15.eax") {
        o.config.cpuid_0x15_eax = static_cast<uint32_t>(n);
    } else if (a == "--cpuid-0x15.ebx") {
        o.config.cpuid_0x15_ebx = static_cast<uint32_t>(n);
    } else {
        // --filter:addrN_cfg|a|b
        const int r = a[13] - '0';
        const std::string what = a.substr(14);
        if (what == "_cfg") {
            o.filter.cfg = (o.filter.cfg & ~(0xfu << (4 * r))) | (static_cast<uint32_t>(n & 0xf) << (4 * r));
        } else if (what == "_a") {
            o.filter.a[r] = n;
        } else {
            o.filter.b[r] = n;
        }
    }
    return 0;
}

bool is_value_option(const std::string& a) {
    static const char* const kWithValue[] = {
        "--pt",       "-j",         "--jobs",           "--part-bytes",     "--raw",   "--elf", "--cpu",
        "--mtc-freq", "--nom-freq", "--cpuid-0x15.eax", "--cpuid-0x15.ebx", "--compat"};
    for (const char* w : kWithValue)
        if (a == w) return true;
    return a.size() >= 15 && a.rfind("--filter:addr", 0) == 0 && a[13] >= '0' && a[13] <= '3' &&
           (a.substr(14) == "_cfg" || a.substr(14) == "_a" || a.substr(14) == "_b");
}

// Flags: true when a is one.
bool flag_option(const std::string& a, FlowOptions& o) {
    if (a == "--insn-decoder")
        o.block = false;
    else if (a == "--block-decoder")
        o.block = true;
    else if (a == "--no-inst")
        o.no_inst = true;
    else if (a == "--att")
        o.att = true;
    else if (a == "--check")
        o.check = true;
    else if (a == "--quiet" || a == "-q")
        o.quiet = true;
    else if (a == "--raw-insn")
        o.raw_insn = true;
    else if (a == "--event:ip")
        o.event_ip = true;
    else if (a == "--event:time")
        o.event_time = true;
    else if (a == "--event:tick")
        o.event_tick = true;
    else if (a == "--block:show-blocks")
        o.show_blocks = true;
    else if (a == "--block:end-on-call")
        o.end_on_call = true;
    else if (a == "--block:end-on-jump")
        o.end_on_jump = true;
    else if (a == "--stat")
        o.stats = true;
    else if (a == "--stat:insn")
        o.stats = true, o.stat_flags |= 1;
    else if (a == "--stat:blocks")
        o.stats = true, o.stat_flags |= 2;
    else if (a == "--stat:jobs")
        o.stat_jobs = true;
    else if (a == "--resync-on-error")
        o.resync = true;
    // Each for its decoder, as ptxed takes them (both decoders are one here).
    else if (a == "--insn:keep-tcal-on-ovf")
        o.keep_tcal_insn = true;
    else if (a == "--block:keep-tcal-on-ovf")
        o.keep_tcal_block = true;
    else if (a == "--event:iflags")
        o.config.iflags_events = true;
    else
        return false;
    return true;
}

void usage(std::FILE* f) {
    std::fputs(
        "usage: ringscope ipt flow [--insn-decoder|--block-decoder] [--raw FILE[:OFF[-END]]:ADDR]... "
        "[--elf FILE[:BASE]]...\n"
        "       [--cpu F/M[/S]|none] [--mtc-freq N] [--nom-freq N] [--cpuid-0x15.eax N] [--cpuid-0x15.ebx "
        "N]\n"
        "       [--filter:addrN_cfg|_a|_b N] [--resync-on-error] [--no-inst] [--att] [--raw-insn] [--check] "
        "[--quiet]\n"
        "       [--event:ip] [--event:time] [--event:tick] [--stat[:insn|:blocks]] [--block:show-blocks]\n"
        "       [--block:end-on-call] [--block:end-on-jump] [--insn:keep-tcal-on-ovf] "
        "[--block:keep-tcal-on-ovf]\n"
        "       [--compat 2.0.5|master] [-j THREADS [--part-bytes N]] --pt FILE[:FROM[-TO]] | FILE.pt\n",
        f);
}

}  // namespace

Status add_image_arg(const std::string& a, const std::string& v, Image& image, Symbols* symbols, bool* bad) {
    if (a == "--raw") {
        std::string path;
        uint64_t off = 0, size = 0, addr = 0;
        if (!Image::parse_raw(v, path, off, size, addr)) {
            if (bad) *bad = true;
            return Error(Errc::invalid_argument, a + ": bad section: " + v);
        }
        return image.add_raw(path, off, size, addr);
    }
    std::string path = v;
    uint64_t base = 0;
    size_t colon = v.rfind(':');
    bool have_base = colon != std::string::npos && parse_number(v.substr(colon + 1), base);
    if (have_base) path = v.substr(0, colon);
    std::vector<Image::Function> functions;
    Status s = image.add_elf(path, have_base, base, symbols ? &functions : nullptr);
    for (Image::Function& f : functions) symbols->add(f.address, std::move(f.name));
    return s;
}

int image_option(const char* prog, const std::string& a, const std::string& v, Image& image, std::FILE* err,
                 Symbols* symbols) {
    if (a != "--raw" && a != "--elf") return -1;
    bool usage = false;
    if (Status s = add_image_arg(a, v, image, symbols, &usage); !s) {
        std::fprintf(err, "%s: %s\n", prog,
                     usage ? s.error().message().c_str() : s.error().to_string().c_str());
        return usage ? 2 : 1;
    }
    return 0;
}

int parse_flow_args(const std::vector<std::string>& args, FlowOptions& o, FlowInputs& in, std::FILE* out,
                    std::FILE* err) {
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "-h" || a == "--help") {
            usage(out);
            return 0;
        }
        if (flag_option(a, o)) continue;
        if (is_value_option(a)) {
            if (i + 1 >= args.size()) {
                std::fprintf(err, "ringscope ipt flow: %s: missing argument\n", a.c_str());
                return 2;
            }
            if (int rc = value_option(a, args[++i], o, in, err)) return rc;
        } else if (!a.empty() && a[0] != '-' && !in.have_pt) {
            if (int rc = value_option("--pt", a, o, in, err)) return rc;
        } else {
            std::fprintf(err, "ringscope ipt flow: unknown option: %s\n", a.c_str());
            usage(err);
            return 2;
        }
    }
    if (!in.have_pt) {
        usage(err);
        return 2;
    }
    return -1;
}

}  // namespace ringscope::ipt
