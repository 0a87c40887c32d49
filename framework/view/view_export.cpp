#include "framework/view/view_export.hpp"

#include <algorithm>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "framework/io/atomic_output.hpp"
#include "framework/view/assets.hpp"
#include "framework/view/json_line.hpp"

namespace ringscope::view {
namespace {

using json = nlohmann::json;

// The value of ATTR="..." in TAG ("" when absent).
std::string attribute(std::string_view tag, std::string_view attr) {
    const std::string key = std::string(attr) + "=\"";
    const size_t at = tag.find(key);
    if (at == std::string_view::npos) return {};
    const size_t end = tag.find('"', at + key.size());
    return end == std::string_view::npos ? std::string()
                                         : std::string(tag.substr(at + key.size(), end - at - key.size()));
}

std::string_view asset_text(std::string_view href) {
    if (href.rfind("assets/", 0) == 0) href.remove_prefix(7);
    const Asset* a = find_asset(href);
    return a ? a->data : std::string_view();
}

// A module as part of one inline module: its `import ... from './x.js';` lines go (what they name
// is in the same script) and `export ` before a declaration goes.
std::string flatten_module(std::string_view text) {
    std::string out;
    while (!text.empty()) {
        const size_t nl = text.find('\n');
        std::string_view line = text.substr(0, nl == std::string_view::npos ? text.size() : nl + 1);
        text.remove_prefix(line.size());
        if (line.rfind("import ", 0) == 0 && line.find(" from ") != std::string_view::npos) continue;
        if (line.rfind("export default ", 0) == 0)
            line.remove_prefix(15);
        else if (line.rfind("export ", 0) == 0)
            line.remove_prefix(7);
        out += line;
    }
    return out;
}

// "</script>" must not appear in inline text: "<" as \u003c is the same JSON.
size_t script_safe_size(std::string_view text) {
    return text.size() + 5 * static_cast<size_t>(std::count(text.begin(), text.end(), '<'));
}

void write_script_safe(std::FILE* f, std::string_view text) {
    for (size_t lt; (lt = text.find('<')) != std::string_view::npos; text.remove_prefix(lt + 1)) {
        std::fwrite(text.data(), 1, lt, f);
        std::fputs("\\u003c", f);
    }
    std::fwrite(text.data(), 1, text.size(), f);
}

void write_text(std::FILE* f, std::string_view text) {
    std::fwrite(text.data(), 1, text.size(), f);
}

}  // namespace

PageParts page_parts(const std::string& body) {
    const Asset* index = find_asset("index.html");
    std::string_view page =
        index ? index->data : std::string_view("<!doctype html><title>ringscope view</title>");
    PageParts parts;
    std::string* out = &parts.head;
    std::string modules;
    size_t pos = 0;
    while (pos < page.size()) {
        const size_t lt = page.find('<', pos);
        if (lt == std::string_view::npos) {
            *out += page.substr(pos);
            break;
        }
        *out += page.substr(pos, lt - pos);
        if (page.substr(lt, 4) == "<!--") {  // the page's notes for its readers: not its content
            const size_t close = page.find("-->", lt + 4);
            pos = close == std::string_view::npos ? page.size() : close + 3;
            continue;
        }
        const size_t gt = page.find('>', lt);
        if (gt == std::string_view::npos) {
            *out += page.substr(lt);
            break;
        }
        std::string_view tag = page.substr(lt, gt - lt + 1);
        pos = gt + 1;
        if (tag.rfind("<link", 0) == 0 && attribute(tag, "rel") == "stylesheet") {
            *out += "<style>\n" + std::string(asset_text(attribute(tag, "href"))) + "</style>";
        } else if (tag.rfind("<link", 0) == 0 && attribute(tag, "rel") == "modulepreload") {
            modules += flatten_module(asset_text(attribute(tag, "href")));
        } else if (tag.rfind("<script", 0) == 0 && !attribute(tag, "src").empty()) {
            if (const size_t close = page.find("</script>", pos); close != std::string_view::npos)
                pos = close + 9;
        } else if (tag == "</body>") {
            *out += body + "</body>";
        } else if (tag == "</head>" && out == &parts.head) {
            parts.head += "<script id=\"ringscope-data\" type=\"application/json\">";
            out = &parts.tail;
            *out += "</script>\n<script type=\"module\">\n" + modules + "</script>\n</head>";
        } else {
            *out += tag;
        }
    }
    if (out == &parts.head) {
        parts.head += "<script id=\"ringscope-data\" type=\"application/json\">";
        parts.tail = "</script>\n";
    }
    return parts;
}

std::string inline_page(const std::string& blob, const std::string& body) {
    const PageParts parts = page_parts(body);
    std::string out = parts.head;
    append_script_safe(out, blob);
    return out + parts.tail;
}

size_t ExportPage::size() const {
    size_t n = parts.head.size() + parts.tail.size() + lines_ts.size() + 2;  // the brackets
    for (const std::string& piece : pieces) n += script_safe_size(piece);
    for (size_t i = 0; i < result.lines; ++i) n += lines[i].size() + (i > 0);
    return n;
}

void ExportPage::write(std::FILE* f) const {
    write_text(f, parts.head);
    // The blob: pieces[0..] around the event lines (already JSON strings, script-safe).
    write_script_safe(f, pieces[0]);
    write_text(f, "[");
    for (size_t i = 0; i < result.lines; ++i) {
        if (i > 0) write_text(f, ",");
        write_text(f, lines[i]);
    }
    write_text(f, "]");
    write_text(f, lines_ts);
    write_script_safe(f, pieces[1]);
    write_text(f, parts.tail);
}

std::string ExportPage::html() const {
    std::string out;
    out.reserve(size());
    out += parts.head;
    append_script_safe(out, pieces[0]);
    out += "[";
    for (size_t i = 0; i < result.lines; ++i) out += (i > 0 ? "," : "") + lines[i];
    out += "]" + lines_ts;
    append_script_safe(out, pieces[1]);
    return out + parts.tail;
}

Expected<ExportPage> build_export(ViewApi& api, ViewIndex& index, const EventsSource& events,
                                  const std::string& body, size_t cap, const std::string& run) {
    ExportPage out;
    auto ev = events(EventsQuery{index.start(), index.end(), 50000, {}, {}, {}});
    if (!ev) return ev.error();
    // Each line as its JSON string, "<" written \u003c, in place (no second copy of the lines).
    std::string quoted;
    for (std::string& line : ev->lines) {
        quoted.clear();
        append_json_line(quoted, line);
        line = std::string(quoted);  // its exact size
    }
    out.lines = std::move(ev->lines);
    out.parts = page_parts(body);
    const std::string meta = api.meta();
    // The contract's detail first, then coarser lanes and fewer lines until the page fits.
    const uint32_t widths[] = {20000, 8000, 4000, 2000, 1000, 500};
    for (uint32_t width : widths) {
        auto cpus = api.cpus(index.start(), index.end(), width);
        if (!cpus) return cpus.error();
        auto tasks = api.tasks(index.start(), index.end(), width, {});
        if (!tasks) return tasks.error();
        out.pieces = {"{" + (run.empty() ? std::string() : "\"run\":" + run + ",") + "\"meta\":" + meta +
                          ",\"cpus\":" + *cpus + ",\"tasks\":" + *tasks +
                          ",\"marks\":" + api.marks(index.start(), index.end(), width) + ",\"events\":",
                      ",\"events_total\":" + std::to_string(ev->total) + "}"};
        cpus->clear();
        tasks->clear();
        size_t fixed = out.parts.head.size() + out.parts.tail.size();
        for (const std::string& piece : out.pieces) fixed += script_safe_size(piece);
        // Fewer lines (halved) until the page fits: their bytes and their times'.
        size_t nlines = out.lines.size();
        for (;;) {
            size_t bytes = fixed + 2 + (nlines > 0 ? nlines - 1 : 0);  // brackets, commas
            for (size_t i = 0; i < nlines; ++i) bytes += out.lines[i].size();
            out.lines_ts =
                ",\"lines_ts\":" +
                json(std::vector<uint64_t>(ev->ts.begin(), ev->ts.begin() + static_cast<long>(nlines)))
                    .dump();
            if (bytes + out.lines_ts.size() <= cap || nlines == 0 || fixed > cap) break;
            nlines /= 2;
        }
        out.result.width = width;
        out.result.lines = nlines;
        if (out.size() <= cap) break;
        out.result.coarser = true;
    }
    out.result.coarser =
        out.result.coarser || out.result.lines < out.lines.size() || out.result.width < widths[0];
    out.lines.resize(out.result.lines);
    out.result.bytes = out.size();
    return out;
}

Expected<ExportResult> write_export(ViewApi& api, ViewIndex& index, const EventsSource& events,
                                    const std::string& path, size_t cap) {
    auto page = build_export(api, index, events, {}, cap);
    if (!page) return page.error();
    io::AtomicOutput out(path);
    auto f = out.open();
    if (!f) return f.error();
    page->write(*f);
    if (std::ferror(*f)) return Error(Errc::io, path + ": write failed");
    if (Status st = out.commit(); !st) return st.error();
    return page->result;
}

std::string coarser_note(const ExportResult& r, size_t cap) {
    char buf[160];
    // The cap in MB when it is whole MB (the default), else in bytes (tests lower it).
    const std::string limit =
        cap % (1u << 20) == 0 ? std::to_string(cap >> 20) + " MB" : std::to_string(cap) + " bytes";
    std::snprintf(buf, sizeof buf,
                  "kept under %s: lanes at %u pixels, %zu event lines (coarser than the full detail)",
                  limit.c_str(), r.width, r.lines);
    return buf;
}

}  // namespace ringscope::view
