// `ringscope ipt sync [--at OFF[,OFF...]] FILE`: the synchronization points a query decoder finds,
// forward, backward and at given offsets, one line each (format in issue #7).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "ipt/config.hpp"

namespace ringscope::ipt {

class PagesBehind;

// Prints the three sections for config's buffer; returns the bytes the sync calls searched and
// decoded (QueryDecoder::sync_work), for tests that bound it. With forward and backward (over
// config's bytes), each direction gives back the pages of a mapped file it has passed, and the
// report stops where the file shrank (failed()).
uint64_t sync_report(const Config& config, const std::vector<uint64_t>& at, std::FILE* out,
                     PagesBehind* forward = nullptr, PagesBehind* backward = nullptr);

// The whole command; exit code 0, 1 (runtime error) or 2 (usage error).
int sync_main(const std::vector<std::string>& args, std::FILE* out, std::FILE* err);

}  // namespace ringscope::ipt
