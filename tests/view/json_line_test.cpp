// The export's JSON string of an event line (framework/view/json_line.hpp): byte for byte what
// nlohmann::json's dump writes (UTF-8 kept, invalid bytes as U+FFFD), with "<" as \u003c.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "framework/view/json_line.hpp"

namespace ringscope::view {
namespace {

std::string reference(const std::string& s) {
    const std::string dumped =
        nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    std::string out;
    for (char c : dumped) out += c == '<' ? std::string("\\u003c") : std::string(1, c);
    return out;
}

std::string ours(const std::string& s) {
    std::string out = "x";  // appends
    append_json_line(out, s);
    return out.substr(1);
}

TEST(JsonLine, EveryByteAsNlohmannWritesIt) {
    for (int b = 0; b < 256; ++b) {
        const std::string s = "a" + std::string(1, static_cast<char>(b)) + "z";
        EXPECT_EQ(ours(s), reference(s)) << "byte " << b;
    }
}

TEST(JsonLine, ReportLines) {
    const std::string lines[] = {
        "",
        "          <idle>-0     [001]  6213.532404: sched_switch:         prev_comm=x prev_pid=1 ==> next",
        "  bash-1 [000] 1.000: print: 0xffff: \"quoted\" back\\slash\ttab\nnew </script> end",
        "  caf\xc3\xa9-7 [000] 1.0: print: \xe2\x82\xac and a bad byte \xff and \x01 control <",
    };
    for (const auto& s : lines) EXPECT_EQ(ours(s), reference(s)) << s;
}

}  // namespace
}  // namespace ringscope::view
