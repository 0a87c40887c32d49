#include "framework/io/option_codec.hpp"

#include <cstring>
#include <string>

namespace ringscope::io {

namespace {

// Option strings are NUL-terminated; keep the text before the first NUL (all of it if none).
std::string option_text(std::span<const uint8_t> data) {
    const void* nul = data.empty() ? nullptr : std::memchr(data.data(), 0, data.size());
    size_t len = nul ? static_cast<size_t>(static_cast<const uint8_t*>(nul) - data.data()) : data.size();
    return std::string(reinterpret_cast<const char*>(data.data()), len);
}

Error too_short(const char* name, std::span<const uint8_t> data, size_t need, uint64_t off) {
    return Error(Errc::corrupt, std::string("option ") + name + ": " + std::to_string(data.size()) +
                                    " bytes, needs at least " + std::to_string(need))
        .at_offset(static_cast<int64_t>(off));
}

Status decode_time_shift(std::span<const uint8_t> data, uint64_t off, bool big, TraceDatOptions& opts) {
    ByteCursor c(data, off, big, "option TIME_SHIFT");
    TimeShift ts;
    // The caller checked the 16-byte fixed part.
    ts.peer_trace_id = *c.read<uint64_t>();
    ts.flags = *c.read<uint32_t>();
    const uint32_t ncpu = *c.read<uint32_t>();
    // Each CPU needs at least its 4-byte count: refuse counts the payload cannot hold before
    // allocating anything.
    if (ncpu > c.remaining() / 4)
        return c.error(Errc::corrupt, "CPU count " + std::to_string(ncpu) + " too large");
    ts.cpus.resize(ncpu);
    for (auto& samples : ts.cpus) {
        auto n = c.read<uint32_t>();
        if (!n) return c.error(Errc::corrupt, "truncated sample count");
        if (*n > c.remaining() / 24) {
            return c.error(Errc::corrupt, "sample count " + std::to_string(*n) + " does not fit the option");
        }
        samples.resize(*n);
        for (auto& s : samples) s.time = static_cast<int64_t>(*c.read<uint64_t>());
        for (auto& s : samples) s.offset = static_cast<int64_t>(*c.read<uint64_t>());
        for (auto& s : samples) s.scaling = static_cast<int64_t>(*c.read<uint64_t>());
    }
    // The fraction-bits arrays follow all CPUs when the writer knows them (trace-cmd >= 3.0).
    if (!c.at_end()) {
        ts.has_fraction = true;
        for (auto& samples : ts.cpus) {
            if (samples.size() > c.remaining() / 8) return c.error(Errc::corrupt, "truncated fraction bits");
            for (auto& s : samples) s.fraction = static_cast<int64_t>(*c.read<uint64_t>());
        }
    }
    opts.time_shift = std::move(ts);
    return {};
}

Status decode_guest(std::span<const uint8_t> data, uint64_t off, bool big, TraceDatOptions& opts) {
    ByteCursor c(data, off, big, "option GUEST");
    GuestInfo g;
    auto name = c.cstring();
    if (!name) return c.error(Errc::corrupt, "guest name without a terminating NUL");
    g.name = std::string(*name);
    auto id = c.read<uint64_t>();
    if (!id) return c.error(Errc::corrupt, "truncated trace id");
    g.trace_id = *id;
    auto n = c.read<uint32_t>();
    if (!n) return c.error(Errc::corrupt, "truncated vCPU count");
    if (*n > c.remaining() / 8)
        return c.error(Errc::corrupt, "vCPU count " + std::to_string(*n) + " does not fit");
    g.vcpus.resize(*n);
    for (auto& v : g.vcpus) {
        v.vcpu = *c.read<uint32_t>();
        v.host_pid = *c.read<uint32_t>();
    }
    opts.guests.push_back(std::move(g));
    return {};
}

}  // namespace

Status decode_option(uint16_t id, std::span<const uint8_t> data, uint64_t off, bool big,
                     TraceDatOptions& opts) {
    switch (static_cast<OptionId>(id)) {
        case OptionId::date:
            opts.date = option_text(data);
            return {};
        case OptionId::cpustat:
            opts.cpustats.push_back(option_text(data));
            return {};
        case OptionId::traceclock:
            opts.trace_clock = option_text(data);
            return {};
        case OptionId::uname:
            opts.uname = option_text(data);
            return {};
        case OptionId::hook:
            opts.hooks.push_back(option_text(data));
            return {};
        case OptionId::offset:
            opts.offset = option_text(data);
            return {};
        case OptionId::version:
            opts.version = option_text(data);
            return {};
        case OptionId::procmaps:
            opts.procmaps = option_text(data);
            return {};
        case OptionId::cpucount:
            if (data.size() < 4) return too_short("CPUCOUNT", data, 4, off);
            opts.cpu_count = load_endian<uint32_t>(data.data(), big);
            if (*opts.cpu_count > kMaxCpus) {
                return Error(Errc::corrupt, "CPUCOUNT " + std::to_string(*opts.cpu_count) + " is more than " +
                                                std::to_string(kMaxCpus) + " CPUs")
                    .at_offset(static_cast<int64_t>(off));
            }
            return {};
        case OptionId::traceid:
            if (data.size() < 8) return too_short("TRACEID", data, 8, off);
            opts.trace_id = load_endian<uint64_t>(data.data(), big);
            return {};
        case OptionId::time_shift:
            if (data.size() < 16) return too_short("TIME_SHIFT", data, 16, off);
            return decode_time_shift(data, off, big, opts);
        case OptionId::guest:
            return decode_guest(data, off, big, opts);
        case OptionId::tsc2nsec:
            if (data.size() < 16) return too_short("TSC2NSEC", data, 16, off);
            opts.tsc2nsec =
                Tsc2Nsec{load_endian<uint32_t>(data.data(), big), load_endian<uint32_t>(data.data() + 4, big),
                         load_endian<uint64_t>(data.data() + 8, big)};
            return {};
        default:
            break;
    }
    opts.unknown.push_back(RawOption{id, std::vector<uint8_t>(data.begin(), data.end())});
    return {};
}

void encode_option(ByteSink& out, uint16_t id, std::span<const uint8_t> payload) {
    out.put<uint16_t>(id);
    out.put<uint32_t>(static_cast<uint32_t>(payload.size()));
    out.put_bytes(payload);
}

namespace {

void put_text_option(ByteSink& out, OptionId id, const std::string& text) {
    ByteSink p(out.big_endian());
    p.put_cstring(text);
    encode_option(out, static_cast<uint16_t>(id), p.buffer());
}

}  // namespace

void encode_options(const TraceDatOptions& o, ByteSink& out) {
    const bool big = out.big_endian();
    if (o.date) put_text_option(out, OptionId::date, *o.date);
    if (o.offset) put_text_option(out, OptionId::offset, *o.offset);
    if (o.trace_clock) put_text_option(out, OptionId::traceclock, *o.trace_clock);
    if (o.uname) put_text_option(out, OptionId::uname, *o.uname);
    if (o.version) put_text_option(out, OptionId::version, *o.version);
    if (o.trace_id) {
        ByteSink p(big);
        p.put<uint64_t>(*o.trace_id);
        encode_option(out, static_cast<uint16_t>(OptionId::traceid), p.buffer());
    }
    for (const auto& s : o.cpustats) put_text_option(out, OptionId::cpustat, s);
    for (const auto& h : o.hooks) put_text_option(out, OptionId::hook, h);
    if (o.procmaps) put_text_option(out, OptionId::procmaps, *o.procmaps);
    for (const auto& g : o.guests) {
        ByteSink p(big);
        p.put_cstring(g.name);
        p.put<uint64_t>(g.trace_id);
        p.put<uint32_t>(static_cast<uint32_t>(g.vcpus.size()));
        for (const auto& v : g.vcpus) {
            p.put<uint32_t>(v.vcpu);
            p.put<uint32_t>(v.host_pid);
        }
        encode_option(out, static_cast<uint16_t>(OptionId::guest), p.buffer());
    }
    if (o.tsc2nsec) {
        ByteSink p(big);
        p.put<uint32_t>(o.tsc2nsec->mult);
        p.put<uint32_t>(o.tsc2nsec->shift);
        p.put<uint64_t>(o.tsc2nsec->offset);
        encode_option(out, static_cast<uint16_t>(OptionId::tsc2nsec), p.buffer());
    }
    if (o.time_shift) {
        const TimeShift& t = *o.time_shift;
        ByteSink p(big);
        p.put<uint64_t>(t.peer_trace_id);
        p.put<uint32_t>(t.flags);
        p.put<uint32_t>(static_cast<uint32_t>(t.cpus.size()));
        for (const auto& samples : t.cpus) {
            p.put<uint32_t>(static_cast<uint32_t>(samples.size()));
            for (const auto& s : samples) p.put<uint64_t>(static_cast<uint64_t>(s.time));
            for (const auto& s : samples) p.put<uint64_t>(static_cast<uint64_t>(s.offset));
            for (const auto& s : samples) p.put<uint64_t>(static_cast<uint64_t>(s.scaling));
        }
        if (t.has_fraction) {
            for (const auto& samples : t.cpus)
                for (const auto& s : samples) p.put<uint64_t>(static_cast<uint64_t>(s.fraction));
        }
        encode_option(out, static_cast<uint16_t>(OptionId::time_shift), p.buffer());
    }
    for (const auto& r : o.unknown) {
        // trace-cmd 3.4's BTF_FILE, LAST_BOOT_INFO and MODULES_FILE hold the offset of a section of
        // the file they were read from: in another file it would point at nothing. The writer
        // writes its own, for the sections the metadata carries (extra_sections).
        if (is_section_offset_option(r.id)) continue;
        encode_option(out, r.id, r.data);
    }
    if (o.cpu_count) {
        ByteSink p(big);
        p.put<uint32_t>(*o.cpu_count);
        encode_option(out, static_cast<uint16_t>(OptionId::cpucount), p.buffer());
    }
}

}  // namespace ringscope::io
