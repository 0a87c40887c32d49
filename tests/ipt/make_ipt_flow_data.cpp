// Writes tests/data/ipt/flow: the code of a made-up program (bench/ipt/flow_program.hpp) at
// 0x400000, its function names in /proc/kallsyms' format, and two traces of it (a clean one, and
// one with broken bytes: decode errors and resyncs). tests/data/ipt/README.md says how the oracle
// output is made from them.
//   build/tests/make_ipt_flow_data tests/data/ipt/flow
#include <cinttypes>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "flow_program.hpp"

namespace rb = ringscope::ipt::bench;

namespace {

bool write(const std::string& path, const std::vector<uint8_t>& bytes) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return false;
    const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
    return std::fclose(f) == 0 && ok;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    const std::string dir = argv[1];
    rb::FlowOptions o;
    o.seed = 7;
    o.functions = 40;
    o.pt_bytes = 6 << 10;
    o.psb_period = 1024;
    const rb::FlowProgram program = rb::make_program(o);
    rb::FlowTrace trace = rb::trace_program(program, o);
    if (!write(dir + "/code.bin", program.code) || !write(dir + "/clean.pt", trace.pt)) return 1;
    std::mt19937_64 rng(o.seed);
    for (int k = 0; k < 6; ++k) trace.pt[rng() % trace.pt.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
    if (!write(dir + "/broken.pt", trace.pt)) return 1;
    std::FILE* syms = std::fopen((dir + "/code.kallsyms").c_str(), "w");
    if (!syms) return 1;
    for (size_t k = 0; k < program.function_start.size(); ++k)
        std::fprintf(syms, "%016" PRIx64 " T %s\n", program.function_start[k],
                     program.function_name[k].c_str());
    return std::fclose(syms) == 0 ? 0 : 1;
}
