// `ringscope view --export OUT.html`: the page with its assets inlined and the data of the whole
// trace embedded (README.md), coarser when it would pass the size cap.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include <ringscope/error.hpp>

#include "framework/view/view_api.hpp"

namespace ringscope::view {

inline constexpr size_t kExportCap = 20u << 20;

struct ExportResult {
    size_t bytes = 0;
    uint32_t width = 0;    // the level of detail the lanes were summarised at
    size_t lines = 0;      // event lines embedded
    bool coarser = false;  // the cap made it use less than the full detail
};

// The page of the embedded assets around its data blob: HEAD + the blob (JSON, "<" written
// \u003c) + TAIL. Stylesheet as <style>, modules in their modulepreload order as one inline module
// (import lines dropped, `export ` removed); BODY (HTML: `run`'s result tables) goes before </body>.
struct PageParts {
    std::string head, tail;
};
PageParts page_parts(const std::string& body = {});

// The page with BLOB (JSON) as its data.
std::string inline_page(const std::string& blob, const std::string& body = {});

// An export ready to write: the page's parts, the blob's JSON around its event lines (each already
// a JSON string), kept apart so that the page is written piece by piece, never held whole.
struct ExportPage {
    PageParts parts;
    std::vector<std::string> pieces;  // the blob before the lines' array, and after lines_ts
    std::vector<std::string> lines;   // JSON strings, script-safe
    std::string lines_ts;             // ,"lines_ts":[...]
    ExportResult result;

    size_t size() const;
    void write(std::FILE* f) const;
    std::string html() const;  // the whole page in memory (tests)
};

// The whole page, with BODY as above; it and the data together kept under CAP bytes. RUN (JSON, or
// empty): what the page says of the run it reports (`run`'s html output: {"title","config"}).
Expected<ExportPage> build_export(ViewApi& api, ViewIndex& index, const EventsSource& events,
                                  const std::string& body = {}, size_t cap = kExportCap,
                                  const std::string& run = {});

// Writes the export to PATH through io::AtomicOutput.
Expected<ExportResult> write_export(ViewApi& api, ViewIndex& index, const EventsSource& events,
                                    const std::string& path, size_t cap = kExportCap);

// "kept under 20 MB: lanes at 8000 pixels, 25000 event lines (coarser than the full detail)".
std::string coarser_note(const ExportResult& r, size_t cap);

}  // namespace ringscope::view
