#include "framework/cli/run_outputs.hpp"

#include <filesystem>

#include <ringscope/text_escape.hpp>

#include "framework/cli/view_session.hpp"

namespace fs = std::filesystem;

namespace ringscope::cli {

using json = nlohmann::ordered_json;

std::vector<ResultTable> result_tables(const std::string& name, const json& r) {
    std::vector<ResultTable> out;
    if (!r.is_object()) return out;
    for (const auto& [k, v] : r.items()) {
        json rows = v.is_object() ? json::array({v}) : v;
        if (!rows.is_array() || rows.empty() || !rows[0].is_object()) continue;
        ResultTable t;
        t.name = k.find('.') != std::string::npos ? k : name + "." + k;
        for (const auto& [col, x] : rows[0].items()) t.columns.push_back(col);
        for (const auto& row : rows) {
            std::vector<Cell> cells;
            for (const auto& col : t.columns) {
                const json& x = row.contains(col) ? row[col] : json();
                if (x.is_string())
                    cells.emplace_back(x.get<std::string>());
                else if (x.is_number_unsigned())
                    cells.emplace_back(x.get<uint64_t>());
                else if (x.is_number_integer())
                    cells.emplace_back(x.get<int64_t>());
                else if (x.is_number_float())
                    cells.emplace_back(x.get<double>());
                else if (x.is_null())
                    cells.emplace_back(std::monostate{});
                else
                    cells.emplace_back(x.dump());
            }
            t.rows.push_back(std::move(cells));
        }
        out.push_back(std::move(t));
    }
    return out;
}

namespace {

// Writes a complete output under its temporary name; the run renames them all at its end.
template <class Write>
Status write_pending(std::vector<std::unique_ptr<io::AtomicOutput>>& pending, const std::string& path,
                     Write write) {
    auto out = std::make_unique<io::AtomicOutput>(path);
    auto file = out->open();
    if (!file) return file.error();
    write(*file);
    if (Status s = out->close(); !s) return s;
    pending.push_back(std::move(out));
    return {};
}

Status write_pending_text(std::vector<std::unique_ptr<io::AtomicOutput>>& pending, const std::string& path,
                          std::string_view text) {
    return write_pending(pending, path, [&](std::FILE* f) { std::fwrite(text.data(), 1, text.size(), f); });
}

// The html output: `view --export`'s page of FILES with RESULTS (HTML) under it; RUN (JSON) names
// the run in the page's header and title.
Expected<view::ExportPage> html_page(CliContext& ctx, const std::vector<std::string>& files,
                                     const std::string& results, const std::string& run) {
    auto session = ViewSession::open(ctx, files, {});
    if (!session) return session.error();
    return view::build_export((*session)->api(), (*session)->index(), (*session)->events(), results,
                              ViewSession::export_cap(), run);
}

}  // namespace

// The outputs a run file names, by key.
std::vector<std::pair<const char*, const std::string*>> output_files(const config::OutputSpec& o) {
    std::vector<std::pair<const char*, const std::string*>> out;
    for (auto [key, p] : {std::pair{"text", &o.text},
                          {"json", &o.json},
                          {"csv", &o.csv},
                          {"sqlite", &o.sqlite},
                          {"perfetto", &o.perfetto},
                          {"html", &o.html},
                          {"perfetto-trace", &o.perfetto_trace}})
        if (!p->empty()) out.emplace_back(key, p);
    return out;
}

Status write_result_outputs(CliContext& ctx, const config::RunConfig& c, const std::string& run_path,
                            const std::vector<AnalysisOutcome>& results, const sinks::RunSummary& summary,
                            const ReadingStats& reading, const std::vector<std::string>& timeline_files,
                            sinks::ProgressBar& progress,
                            std::vector<std::unique_ptr<io::AtomicOutput>>& pending) {
    std::vector<ResultTable> tables;
    for (const auto& r : results) tables.insert(tables.end(), r.tables.begin(), r.tables.end());
    for (auto [path, format] :
         {std::pair{&c.outputs.text, TableFormat::text}, {&c.outputs.csv, TableFormat::csv}})
        if (!path->empty())
            if (Status s =
                    write_pending(pending, *path, [&](std::FILE* f) { write_tables(f, tables, format); });
                !s)
                return s;
    if (!c.outputs.json.empty()) {
        json doc;
        doc["title"] = escaped(c.title, TextTarget::utf8);
        doc["inputs"] = json::array();
        for (const auto& [i, in] : summary.inputs())
            doc["inputs"].push_back({{"name", escaped(in.name, TextTarget::utf8)},
                                     {"path", escaped(in.path, TextTarget::utf8)},
                                     {"cpus", in.cpus},
                                     {"events", in.events},
                                     {"first_ts", in.first_ts},
                                     {"last_ts", in.last_ts}});
        doc["analyses"] = json::object();
        for (const auto& r : results) doc["analyses"][r.name] = r.doc;
        // One pass: the event analyses and outputs share one read of the CPU data.
        doc["reading"] = {{"events", reading.events},
                          {"cpu_data_bytes", reading.cpu_data_bytes},
                          {"cpu_data_pages", reading.cpu_data_pages},
                          {"pages_loaded", reading.pages_loaded}};
        if (Status s = write_pending_text(pending, c.outputs.json, doc.dump(2) + "\n"); !s) return s;
    }
    if (c.outputs.html.empty()) return Status::success();
    progress.stage("html");
    std::string title =
        c.title.empty() ? "ringscope run: " + fs::path(run_path).filename().string() : c.title;
    std::vector<sinks::NamedResult> named;
    for (const auto& r : results) named.emplace_back(r.name, r.doc);
    // The viewer's page of the inputs with the results under it: its own pass over the files.
    const json run = {{"title", escaped(c.title, TextTarget::utf8)},
                      {"config", escaped(fs::path(run_path).filename().string(), TextTarget::utf8)}};
    auto page = html_page(ctx, timeline_files, sinks::render_results_html(title, summary, named), run.dump());
    if (!page) return page.error();
    if (page->result.coarser)
        std::fprintf(stderr, "%s run: %s: %s\n", ctx.program.c_str(), c.outputs.html.c_str(),
                     view::coarser_note(page->result, ViewSession::export_cap()).c_str());
    return write_pending(pending, c.outputs.html, [&](std::FILE* f) { page->write(f); });
}

}  // namespace ringscope::cli
