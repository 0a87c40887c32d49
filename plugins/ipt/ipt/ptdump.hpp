// `ringscope ipt dump`: libipt's ptdump output format and options, from our own packet decoder.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "ipt/config.hpp"

namespace ringscope::ipt {

class PagesBehind;

struct PtdumpOptions {
    bool show_offset = true;
    bool show_raw_bytes = false;
    bool show_last_ip = false;
    bool show_exec_mode = false;
    bool track_time = false;
    bool show_time = false;
    bool show_tcal = false;
    bool show_time_as_delta = false;
    bool quiet = false;
    bool no_pad = false;
    bool no_sync = false;
    bool no_tcal = false;
    bool no_wall_clock = false;
    bool no_timing = false;
    bool no_cyc = false;
    bool keep_tcal_on_ovf = false;
};

// Dumps config.begin..config.end to out. Returns 0, or the negative pte_* code of a sync failure.
// With threads > 1, PSB segments are decoded in parallel (not with --no-sync, --lastip or time
// tracking, which carry state across segments); the output is the same bytes. part_bytes: input
// bytes per part (0: the default). With pages, the serial dump gives back the pages of a mapped
// file it has passed, and stops where the file shrank (pages->failed()).
int ptdump(const Config& config, const PtdumpOptions& options, std::FILE* out, unsigned threads = 1,
           uint64_t part_bytes = 0, PagesBehind* pages = nullptr);

// The whole command: ptdump's arguments ([OPTIONS] FILE[:FROM[-TO]]). Exit code 0, 1 (runtime
// error) or 2 (usage error).
int ptdump_main(const std::vector<std::string>& args, std::FILE* out, std::FILE* err);

}  // namespace ringscope::ipt
