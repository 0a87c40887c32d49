#include "text_compare.hpp"

#include <lzma.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ringscope::conformance {
namespace {

std::vector<std::string_view> split_lines(const std::string& text) {
    std::vector<std::string_view> lines;
    size_t start = 0;
    while (start < text.size()) {
        size_t nl = text.find('\n', start);
        if (nl == std::string::npos) {
            lines.emplace_back(text.data() + start, text.size() - start);
            break;
        }
        lines.emplace_back(text.data() + start, nl - start);
        start = nl + 1;
    }
    return lines;
}

std::string percent(size_t part, size_t whole) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f%%", whole == 0 ? 100.0 : 100.0 * static_cast<double>(part) / whole);
    return buf;
}

bool decompress_xz(const std::string& in, std::string& out, std::string& error) {
    lzma_stream strm = LZMA_STREAM_INIT;
    if (lzma_stream_decoder(&strm, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) {
        error = "lzma_stream_decoder failed";
        return false;
    }
    strm.next_in = reinterpret_cast<const uint8_t*>(in.data());
    strm.avail_in = in.size();
    std::vector<uint8_t> buf(1 << 16);
    lzma_ret ret = LZMA_OK;
    while (ret == LZMA_OK) {
        strm.next_out = buf.data();
        strm.avail_out = buf.size();
        ret = lzma_code(&strm, LZMA_FINISH);
        out.append(reinterpret_cast<const char*>(buf.data()), buf.size() - strm.avail_out);
    }
    uint64_t consumed = strm.total_in;
    lzma_end(&strm);
    if (ret != LZMA_STREAM_END) {
        error = "xz data corrupt near compressed byte " + std::to_string(consumed) + " (lzma error " +
                std::to_string(static_cast<int>(ret)) + ")";
        return false;
    }
    return true;
}

}  // namespace

Comparison compare_text(const std::string& expected, const std::string& actual, size_t context) {
    Comparison c;
    auto exp = split_lines(expected);
    auto act = split_lines(actual);
    c.expected_lines = exp.size();
    c.actual_lines = act.size();
    c.identical = expected == actual;

    size_t first_diff = std::string::npos;
    for (size_t i = 0; i < exp.size() && i < act.size(); ++i) {
        if (exp[i] == act[i]) {
            ++c.same_position;
        } else if (first_diff == std::string::npos) {
            first_diff = i;
        }
    }
    std::unordered_map<std::string_view, size_t> pool;
    for (auto l : act) ++pool[l];
    for (auto l : exp) {
        auto it = pool.find(l);
        if (it != pool.end() && it->second > 0) {
            --it->second;
            ++c.same_anywhere;
        }
    }
    if (c.identical) return c;

    if (first_diff == std::string::npos) first_diff = std::min(exp.size(), act.size());
    std::ostringstream r;
    if (first_diff == exp.size() && first_diff == act.size()) {
        // Same lines, different bytes: only the final newline differs.
        r << "the outputs differ only in the trailing newline (expected "
          << (expected.ends_with('\n') ? "" : "no ") << "final newline)\n";
    } else {
        r << "first difference at line " << first_diff + 1 << ":\n";
        for (size_t i = first_diff; i < first_diff + context && i < exp.size(); ++i) {
            r << "  expected " << i + 1 << ": " << exp[i] << "\n";
        }
        if (first_diff >= exp.size()) r << "  expected: <end of output after " << exp.size() << " lines>\n";
        for (size_t i = first_diff; i < first_diff + context && i < act.size(); ++i) {
            r << "  actual   " << i + 1 << ": " << act[i] << "\n";
        }
        if (first_diff >= act.size()) r << "  actual:   <end of output after " << act.size() << " lines>\n";
    }
    r << "lines: expected " << c.expected_lines << ", actual " << c.actual_lines
      << "; identical at the same line: " << c.same_position << " ("
      << percent(c.same_position, c.expected_lines) << "); present anywhere: " << c.same_anywhere << " ("
      << percent(c.same_anywhere, c.expected_lines) << ")\n";
    c.report = r.str();
    return c;
}

bool read_expected(const std::string& path, std::string& text, std::string& error) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = path + ": cannot open";
        return false;
    }
    std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!path.ends_with(".xz")) {
        text = std::move(data);
        return true;
    }
    text.clear();
    if (!decompress_xz(data, text, error)) {
        error = path + ": " + error;
        return false;
    }
    return true;
}

}  // namespace ringscope::conformance
