// Writes the committed regression data of tests/data/ipt: generated streams (NAME.pt) and libipt
// 2.0.5's transcript of them (NAME.libipt.txt), so that ipt_data_test runs without libipt.
//   build-ipt/tests/make_ipt_data tests/data/ipt
#include <cstdio>
#include <string>
#include <vector>

#include "ipt/trace_file.hpp"
#include "ipt_stream_generator.hpp"
#include "ipt_transcript_libipt.hpp"

namespace ri = ringscope::ipt;

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    struct Case {
        const char* name;
        uint64_t seed;
        ri::testing::GeneratorOptions options;
    };
    std::vector<Case> cases;
    ri::testing::GeneratorOptions clean;
    clean.segments = 4;
    clean.body_packets = 50;
    cases.push_back({"clean", 101, clean});
    ri::testing::GeneratorOptions messy = clean;
    messy.garbage_before = messy.truncate_last = true;
    messy.corruptions = 3;
    cases.push_back({"messy", 102, messy});
    ri::testing::GeneratorOptions close;
    close.segments = 8;
    close.body_packets = 4;
    close.close_psbs = true;
    cases.push_back({"close_psbs", 103, close});
    for (const Case& c : cases) {
        std::vector<uint8_t> raw = ri::testing::generate_stream(c.seed, c.options);
        ri::TraceBytes bytes = ri::TraceBytes::copy(raw.data(), raw.size());
        ipt_transcript::Theirs theirs(bytes.begin(), bytes.end());
        std::string text =
            "# seed " + std::to_string(c.seed) + "\n" + ipt_transcript::transcript(theirs, raw, c.seed);
        std::string base = std::string(argv[1]) + "/" + c.name;
        std::FILE* pt = std::fopen((base + ".pt").c_str(), "wb");
        std::FILE* txt = std::fopen((base + ".libipt.txt").c_str(), "w");
        if (!pt || !txt) {
            std::perror(base.c_str());
            return 1;
        }
        std::fwrite(raw.data(), 1, raw.size(), pt);
        std::fwrite(text.data(), 1, text.size(), txt);
        std::fclose(pt);
        std::fclose(txt);
        std::printf("%s: %zu bytes, %zu transcript bytes\n", c.name, raw.size(), text.size());
    }
    return 0;
}
