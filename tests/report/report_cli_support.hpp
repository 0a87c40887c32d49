// What the `ringscope report` end-to-end tests share: the built binary run through the shell in
// tests/data, the cases of cases.tsv, and small comparisons of outputs.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "framework/io/trace_dat_reader.hpp"
#include "framework/io/trace_dat_writer.hpp"
#include "tests/support/file_text.hpp"

namespace report_cli {

inline const std::string kBin = std::string(RINGSCOPE_BINARY_DIR) + "/ringscope";
inline const std::string kData = RINGSCOPE_TEST_DATA_DIR;

struct CmdResult {
    int rc = -1;
    std::string out, err;
};

inline std::string shell_quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// Runs a shell command in tests/data; stdout and stderr captured.
inline CmdResult run_shell(const std::string& cmd) {
    char err_tmpl[] = "/tmp/ringscope-report-test.XXXXXX";
    int fd = mkstemp(err_tmpl);
    close(fd);
    CmdResult r;
    FILE* p = popen(("cd " + shell_quote(kData) + " && " + cmd + " 2>" + err_tmpl).c_str(), "r");
    if (!p) return r;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
    int status = pclose(p);
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.err = ringscope::test::read_file(err_tmpl);
    unlink(err_tmpl);
    return r;
}

inline CmdResult report(const std::string& args) {
    return run_shell(shell_quote(kBin) + " report " + args);
}

struct Case {
    std::string name, args, expected;
    int rc;
};

inline std::vector<Case> cases() {
    std::vector<Case> out;
    std::ifstream f(kData + "/traces/cases.tsv");
    std::string line;
    while (std::getline(f, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::vector<std::string> cols;
        std::stringstream ss(line);
        std::string c;
        while (std::getline(ss, c, '\t')) cols.push_back(c);
        if (cols.size() < 4) continue;
        out.push_back({cols[0], cols[1], cols[2], std::atoi(cols[3].c_str())});
    }
    return out;
}

inline size_t identical_lines(const std::string& a, const std::string& b) {
    std::stringstream sa(a), sb(b);
    std::string la, lb;
    size_t same = 0;
    while (std::getline(sa, la) && std::getline(sb, lb)) same += la == lb;
    return same;
}

inline size_t event_lines(const std::string& text) {
    size_t n = 0;
    std::stringstream ss(text);
    std::string l;
    while (std::getline(ss, l)) n += l.rfind("cpus=", 0) != 0 && l.rfind("CPU:", 0) != 0;
    return n;
}

// SOURCE (under tests/data) copied to PATH uncompressed, so that its pages can be patched in
// place; the copy, opened (an error when either step failed).
inline ringscope::Expected<ringscope::io::TraceDatReader> flat_copy(const std::string& source,
                                                                    const std::string& path) {
    using namespace ringscope;
    auto reader = io::TraceDatReader::open(kData + "/" + source);
    if (!reader) return std::move(reader).error();
    io::WriterConfig cfg;
    cfg.compression = io::Compression::none;
    if (Status st = io::write_trace_dat_copy(*reader, path, cfg); !st) return std::move(st).error();
    return io::TraceDatReader::open(path);
}

}  // namespace report_cli
