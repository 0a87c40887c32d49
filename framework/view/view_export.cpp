#include "framework/view/view_export.hpp"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "framework/io/atomic_output.hpp"
#include "framework/view/assets.hpp"

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
std::string script_safe_json(const std::string& blob) {
    std::string out;
    out.reserve(blob.size());
    for (char c : blob) {
        if (c == '<')
            out += "\\u003c";
        else
            out += c;
    }
    return out;
}

}  // namespace

std::string inline_page(const std::string& blob, const std::string& body) {
    const Asset* index = find_asset("index.html");
    std::string_view page =
        index ? index->data : std::string_view("<!doctype html><title>ringscope view</title>");
    std::string out, modules;
    size_t pos = 0;
    while (pos < page.size()) {
        const size_t lt = page.find('<', pos);
        if (lt == std::string_view::npos) {
            out += page.substr(pos);
            break;
        }
        out += page.substr(pos, lt - pos);
        if (page.substr(lt, 4) == "<!--") {  // the page's notes for its readers: not its content
            const size_t close = page.find("-->", lt + 4);
            pos = close == std::string_view::npos ? page.size() : close + 3;
            continue;
        }
        const size_t gt = page.find('>', lt);
        if (gt == std::string_view::npos) {
            out += page.substr(lt);
            break;
        }
        std::string_view tag = page.substr(lt, gt - lt + 1);
        pos = gt + 1;
        if (tag.rfind("<link", 0) == 0 && attribute(tag, "rel") == "stylesheet") {
            out += "<style>\n" + std::string(asset_text(attribute(tag, "href"))) + "</style>";
        } else if (tag.rfind("<link", 0) == 0 && attribute(tag, "rel") == "modulepreload") {
            modules += flatten_module(asset_text(attribute(tag, "href")));
        } else if (tag.rfind("<script", 0) == 0 && !attribute(tag, "src").empty()) {
            if (const size_t close = page.find("</script>", pos); close != std::string_view::npos)
                pos = close + 9;
        } else if (tag == "</body>") {
            out += body + "</body>";
        } else if (tag == "</head>") {
            out += "<script id=\"ringscope-data\" type=\"application/json\">" + script_safe_json(blob) +
                   "</script>\n<script type=\"module\">\n" + modules + "</script>\n</head>";
        } else {
            out += tag;
        }
    }
    if (out.find("ringscope-data") == std::string::npos)
        out += "<script id=\"ringscope-data\" type=\"application/json\">" + script_safe_json(blob) +
               "</script>\n";
    return out;
}

Expected<ExportPage> build_export(ViewApi& api, ViewIndex& index, const EventsSource& events,
                                  const std::string& body, size_t cap) {
    ExportResult res;
    auto ev = events(EventsQuery{index.start(), index.end(), 50000, {}, {}, {}});
    if (!ev) return ev.error();
    std::string page;
    // The contract's detail first, then coarser lanes and fewer lines until the page fits.
    const uint32_t widths[] = {20000, 8000, 4000, 2000, 1000, 500};
    for (uint32_t width : widths) {
        auto cpus = api.cpus(index.start(), index.end(), width);
        if (!cpus) return cpus.error();
        auto tasks = api.tasks(index.start(), index.end(), width, {});
        if (!tasks) return tasks.error();
        const std::string marks = api.marks(index.start(), index.end(), width);
        size_t nlines = ev->lines.size();
        std::string blob;
        const size_t fixed = cpus->size() + tasks->size() + marks.size() + body.size();
        for (;;) {
            const std::vector<std::string> lines(ev->lines.begin(),
                                                 ev->lines.begin() + static_cast<long>(nlines));
            const std::vector<uint64_t> ts(ev->ts.begin(), ev->ts.begin() + static_cast<long>(nlines));
            blob = "{\"meta\":" + api.meta() + ",\"cpus\":" + *cpus + ",\"tasks\":" + *tasks +
                   ",\"marks\":" + marks +
                   ",\"events\":" + json(lines).dump(-1, ' ', false, json::error_handler_t::replace) +
                   ",\"lines_ts\":" + json(ts).dump() + ",\"events_total\":" + std::to_string(ev->total) +
                   "}";
            if (blob.size() + body.size() <= cap || nlines == 0 || fixed > cap) break;
            nlines /= 2;
        }
        res.width = width;
        res.lines = nlines;
        page = inline_page(blob, body);
        if (page.size() <= cap) break;
        res.coarser = true;
    }
    res.coarser = res.coarser || res.lines < ev->lines.size() || res.width < widths[0];
    res.bytes = page.size();
    return ExportPage{std::move(page), res};
}

Expected<ExportResult> write_export(ViewApi& api, ViewIndex& index, const EventsSource& events,
                                    const std::string& path, size_t cap) {
    auto page = build_export(api, index, events, {}, cap);
    if (!page) return page.error();
    io::AtomicOutput out(path);
    auto f = out.open();
    if (!f) return f.error();
    if (std::fwrite(page->html.data(), 1, page->html.size(), *f) != page->html.size())
        return Error(Errc::io, path + ": write failed");
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
