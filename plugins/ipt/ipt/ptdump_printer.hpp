// ptdump's lines: one packet at a time, in libipt ptdump's columns and field widths, with its
// last-IP and time tracking; the serial dump from a decoder's position on (ptdump.cpp's parts use
// it too).
#pragma once

#include <cinttypes>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "ipt/config.hpp"
#include "ipt/errors.hpp"
#include "ipt/last_ip.hpp"
#include "ipt/packet_decoder.hpp"
#include "ipt/ptdump.hpp"
#include "ipt/timing.hpp"

namespace ringscope::ipt {

class PagesBehind;

// printf into a field of a PtdumpLine, cut to its width as ptdump's snprintf cuts it (files that
// use it turn GCC's -Wformat-truncation off).
template <size_t N, class... Args>
void field(char (&f)[N], const char* fmt, Args... args) {
    std::memset(f, 0, N);
    std::snprintf(f, N, fmt, args...);
}

// The columns of one output line, with ptdump's field widths (the sizes of its buffers).
struct PtdumpLine {
    char offset[17];
    char raw[33];
    char opcode[10];
    union {
        char standard[25];
        char extended[48];
    } payload;
    struct {
        char id[5];
        char payload[17];
    } tracking;
    bool use_ext_payload;
    bool skip;
    bool skip_time;
    bool skip_tcal;
};

struct PtdumpTracking {
    LastIp last_ip;
    TimeCal tcal;
    TimeState time;
    uint64_t tsc = 0;
    uint64_t fcr = 0;
    bool in_header = false;

    void reset() { *this = PtdumpTracking{}; }
};

// Prints packets as libipt's ptdump does, tracking last IP and time as its options ask.
class PtdumpPrinter {
  public:
    PtdumpPrinter(const Config& config, const PtdumpOptions& options, std::FILE* out,
                  PagesBehind* pages = nullptr)
        : config_(config), options_(options), out_(out), pages_(pages) {}

    int run();
    // Dumps from the decoder's position until the end, or until a packet would start at or after
    // stop (an offset). Returns the offset it stopped at, the stream's size at the end.
    uint64_t run_until(PacketDecoder& decoder, uint64_t stop);
    int status() const noexcept { return status_; }

  private:
    static constexpr int kStopped = 1;

    int diag(const char* what, uint64_t offset, int err) {
        if (err)
            std::fprintf(out_, "[%" PRIx64 ": %s: %s]\n", offset, what, pt_error_string(err));
        else
            std::fprintf(out_, "[%" PRIx64 ": %s]\n", offset, what);
        return err;
    }
    int dump_packets(PacketDecoder& decoder, uint64_t stop);
    int dump_one(uint64_t offset, const Packet& packet);
    void print_line(const PtdumpLine& line);
    int print_raw(PtdumpLine& line, uint64_t offset, const Packet& packet);
    void print_packet(PtdumpLine& line, uint64_t offset, const Packet& packet);
    void print_sync_packet(PtdumpLine& line, uint64_t offset, const Packet& packet);
    void print_state_packet(PtdumpLine& line, const Packet& packet);
    void print_timing_packet(PtdumpLine& line, uint64_t offset, const Packet& packet);
    void print_event_packet(PtdumpLine& line, const Packet& packet);
    void print_event_trace_packet(PtdumpLine& line, const Packet& packet);
    void print_ip_payload(PtdumpLine& line, const PacketIp& ip);
    void print_tnt_payload(PtdumpLine& line, uint64_t offset, const PacketTnt& tnt);
    void track_last_ip(PtdumpLine& line, uint64_t offset, const PacketIp& ip);
    void track_time(PtdumpLine& line, uint64_t offset);
    void print_time(PtdumpLine& line, uint64_t offset);
    void print_tcal(PtdumpLine& line, uint64_t offset);
    void track_tsc(PtdumpLine& line, uint64_t offset, uint64_t tsc);
    void track_cbr(PtdumpLine& line, uint64_t offset, uint8_t cbr);
    void track_tma(PtdumpLine& line, uint64_t offset, const PacketTma& tma);
    void track_mtc(PtdumpLine& line, uint64_t offset, uint8_t mtc);
    void track_cyc(PtdumpLine& line, uint64_t offset, uint64_t cyc);

    const Config& config_;
    const PtdumpOptions& options_;
    std::FILE* out_;
    PagesBehind* pages_;
    PtdumpTracking tracking_;
    int status_ = 0;
};

}  // namespace ringscope::ipt
