// The committed streams of tests/data/ipt against libipt 2.0.5's transcripts of them (written by
// make_ipt_data): packets, sync forward/backward/set and the query walk, without libipt at hand.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ipt/trace_file.hpp"
#include "ipt_transcript.hpp"

namespace fs = std::filesystem;
namespace ri = ringscope::ipt;

TEST(IptData, CommittedStreamsMatchLibiptTranscripts) {
    fs::path dir = fs::path(RINGSCOPE_TEST_DATA_DIR) / "ipt";
    int checked = 0;
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.path().extension() != ".pt") continue;
        fs::path expected_path = entry.path();
        expected_path.replace_extension(".libipt.txt");
        std::ifstream in(expected_path);
        ASSERT_TRUE(in) << expected_path;
        std::stringstream ss;
        ss << in.rdbuf();
        std::string expected = ss.str();
        ASSERT_EQ(expected.rfind("# seed ", 0), 0u) << expected_path;
        uint64_t seed = std::strtoull(expected.c_str() + 7, nullptr, 10);
        auto bytes = ri::TraceBytes::load(entry.path().string());
        ASSERT_TRUE(bytes) << entry.path();
        std::vector<uint8_t> raw(bytes->begin(), bytes->end());
        ipt_transcript::Ours ours(bytes->begin(), bytes->end());
        std::string got =
            "# seed " + std::to_string(seed) + "\n" + ipt_transcript::transcript(ours, raw, seed);
        EXPECT_EQ(got, expected) << entry.path();
        ++checked;
    }
    EXPECT_GE(checked, 3);
}
