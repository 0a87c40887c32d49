// `ringscope view --export OUT.html`: the page with its assets inlined and the data of the whole
// trace embedded (README.md), coarser when it would pass the size cap.
#pragma once

#include <cstddef>
#include <string>

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

// The page of the embedded assets with BLOB (JSON) as its data: stylesheet as <style>, modules in
// their modulepreload order as one inline module (import lines dropped, `export ` removed). BODY
// (HTML: `run`'s result tables) goes before </body>.
std::string inline_page(const std::string& blob, const std::string& body = {});

struct ExportPage {
    std::string html;
    ExportResult result;
};

// The whole page, with BODY as above; it and the data together kept under CAP bytes.
Expected<ExportPage> build_export(ViewApi& api, ViewIndex& index, const EventsSource& events,
                                  const std::string& body = {}, size_t cap = kExportCap);

// Writes the export to PATH through io::AtomicOutput.
Expected<ExportResult> write_export(ViewApi& api, ViewIndex& index, const EventsSource& events,
                                    const std::string& path, size_t cap = kExportCap);

// "kept under 20 MB: lanes at 8000 pixels, 25000 event lines (coarser than the full detail)".
std::string coarser_note(const ExportResult& r, size_t cap);

}  // namespace ringscope::view
