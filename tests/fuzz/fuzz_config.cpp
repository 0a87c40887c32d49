// `ringscope run` YAML files: the text up to the first NUL is the file, the lines after it are
// `--set key.path=value` overrides. Loading must turn every problem into a Diagnostic (no exception
// escapes, no crash) whatever the YAML holds.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "framework/config/run_config.hpp"

using namespace ringscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const uint8_t* nul = static_cast<const uint8_t*>(std::memchr(data, 0, size));
    const size_t text_len = nul ? static_cast<size_t>(nul - data) : size;
    std::vector<std::string> sets;
    if (nul) {
        std::string rest(reinterpret_cast<const char*>(nul + 1), size - text_len - 1);
        for (size_t start = 0; start <= rest.size() && sets.size() < 8;) {
            size_t nl = rest.find('\n', start);
            if (nl == std::string::npos) nl = rest.size();
            sets.push_back(rest.substr(start, nl - start));
            start = nl + 1;
        }
    }
    // The loader reads a path (it resolves inputs against the file's folder): one file per process.
    static const std::string path = "/tmp/ringscope-fuzz-config-" + std::to_string(getpid()) + ".yaml";
    if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
        std::fwrite(data, 1, text_len, f);
        std::fclose(f);
    } else {
        return 0;
    }
    std::vector<config::Diagnostic> errors;
    config::RunConfig cfg = config::load_run_config(path, sets, errors);
    config::AnalysisCatalog catalog;
    config::resolve_analyses(cfg, catalog, errors);
    for (const auto& e : errors) (void)e.to_string();
    return 0;
}
