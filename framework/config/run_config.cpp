#include "framework/config/run_config.hpp"

#include <filesystem>
#include <functional>
#include <set>

#include <yaml-cpp/yaml.h>

#include "framework/config/param_values.hpp"

namespace fs = std::filesystem;

namespace ringscope::config {

std::string Diagnostic::to_string() const {
    return pos.file + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column) + ": " + message;
}

namespace {

class Loader {
  public:
    Loader(std::string path, std::vector<Diagnostic>& errors)
        : path_(std::move(path)), dir_(fs::path(path_).parent_path()), errors_(errors) {}

    bool inputs_given = false;  // the command line names the inputs

    SourcePos pos(const YAML::Node& n) const {
        for (size_t i = 0; i < overrides_.size(); ++i)
            if (n.is(overrides_[i].first)) return {"--set " + std::to_string(i + 1), 1, overrides_[i].second};
        YAML::Mark m = n.Mark();
        if (m.is_null()) return {path_, 0, 0};
        return {path_, m.line + 1, m.column + 1};
    }
    void error(const YAML::Node& n, std::string msg) { errors_.push_back({pos(n), std::move(msg)}); }

    // "a.b.c=value": keys may themselves contain dots (analysis names), so the longest existing
    // key wins at each level; under `analyses` the rest up to the last segment names the analysis.
    void apply_set(YAML::Node& root, const std::string& set, size_t index) {
        SourcePos where{"--set " + std::to_string(index + 1), 1, 1};
        size_t eq = set.find('=');
        if (eq == std::string::npos || eq == 0) {
            errors_.push_back({where, "expected key.path=value, got '" + set + "'"});
            return;
        }
        std::vector<std::string> parts;
        std::string key = set.substr(0, eq);
        for (size_t b = 0;;) {
            size_t e = key.find('.', b);
            parts.push_back(key.substr(b, e - b));
            if (e == std::string::npos) break;
            b = e + 1;
        }
        YAML::Node value;
        try {
            value = YAML::Load(set.substr(eq + 1));
        } catch (const YAML::Exception& ex) {
            errors_.push_back({{where.file, 1, static_cast<int>(eq) + 2 + std::max(0, ex.mark.column)},
                               "bad value: " + ex.msg});
            return;
        }
        if (value.IsNull()) value = YAML::Node(std::string());
        auto join = [&](size_t from, size_t to) {
            std::string k = parts[from];
            for (size_t m = from + 1; m < to; ++m) k += "." + parts[m];
            return k;
        };
        YAML::Node cur = root;
        bool under_analyses = false;
        for (size_t i = 0; i < parts.size();) {
            // A list's entry by its index (inputs.0.options.ipt.flow=branches).
            if (cur.IsSequence() && i + 1 < parts.size() && !parts[i].empty() &&
                parts[i].find_first_not_of("0123456789") == std::string::npos &&
                std::stoull(parts[i].substr(0, 9)) < cur.size()) {
                YAML::Node next = cur[std::stoull(parts[i])];
                cur.reset(next);
                ++i;
                continue;
            }
            if (!cur.IsMap() && !cur.IsNull()) {
                errors_.push_back({where, "'" + key + "': '" + join(0, i) + "' is not a mapping"});
                return;
            }
            // The longest key that exists here; a new analysis takes two parts (plugin.analysis).
            size_t take = 0;
            for (size_t j = parts.size(); j > i && cur.IsMap(); --j)
                if (cur[join(i, j)]) {
                    take = j - i;
                    break;
                }
            if (!take) take = under_analyses && parts.size() - i >= 2 ? 2 : 1;
            std::string k = join(i, i + take);
            if (i + take == parts.size()) {
                cur[k] = value;
                overrides_.push_back({cur[k], static_cast<int>(eq) + 2});
                return;
            }
            under_analyses = i == 0 && k == "analyses";
            YAML::Node next = cur[k];
            cur.reset(next);
            i += take;
        }
    }

    std::optional<std::string> scalar(const YAML::Node& n, const std::string& what) {
        if (!n.IsScalar()) {
            error(n, what + " must be a scalar");
            return std::nullopt;
        }
        return n.Scalar();
    }
    std::optional<bool> boolean(const YAML::Node& n, const std::string& what) {
        auto s = scalar(n, what);
        if (!s) return std::nullopt;
        auto c = canonical_param(ParamType::boolean, *s);
        if (!c) {
            error(n, what + " must be true or false, not '" + *s + "'");
            return std::nullopt;
        }
        return *c == "true";
    }
    std::vector<std::pair<std::string, YAML::Node>> strings(const YAML::Node& n, const std::string& what) {
        std::vector<std::pair<std::string, YAML::Node>> out;
        if (n.IsScalar()) {
            out.push_back({n.Scalar(), n});
        } else if (n.IsSequence()) {
            for (const auto& e : n)
                if (auto s = scalar(e, what + " entry")) out.push_back({*s, e});
        } else if (!n.IsNull()) {
            error(n, what + " must be a list of strings");
        }
        return out;
    }
    std::string resolve(const std::string& p) const {
        if (p.empty() || fs::path(p).is_absolute()) return p;
        return (dir_ / p).lexically_normal().string();
    }
    bool check_file(const YAML::Node& n, const std::string& path, const std::string& what) {
        std::error_code ec;
        if (!fs::is_regular_file(path, ec)) {
            error(n, what + " '" + path + "' does not exist or is not a file");
            return false;
        }
        return true;
    }
    template <class F>
    void keys(const YAML::Node& map, const std::string& what, std::initializer_list<const char*> allowed,
              F&& each) {
        if (!map.IsMap()) {
            if (!map.IsNull()) error(map, what + " must be a mapping");
            return;
        }
        for (const auto& kv : map) {
            std::string k = kv.first.IsScalar() ? kv.first.Scalar() : "";
            bool ok = false;
            for (const char* a : allowed) ok |= k == a;
            if (!ok) {
                std::string list;
                for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
                error(kv.first, "unknown key '" + k + "' in " + what + " (expected one of: " + list + ")");
                continue;
            }
            each(k, kv.first, kv.second);
        }
    }

    void load(const YAML::Node& root, RunConfig& c) {
        c.path = path_;
        if (!root.IsMap()) {
            error(root, "a run file must be a mapping (inputs, analyses, outputs, ...)");
            return;
        }
        YAML::Node outputs;
        keys(root, "the run",
             {"title", "inputs", "plugins", "symbols", "filters", "analyses", "outputs", "quiet"},
             [&](const std::string& k, const YAML::Node& key, const YAML::Node& v) {
                 if (k == "title") {
                     if (auto s = scalar(v, "title")) c.title = *s;
                 } else if (k == "quiet") {
                     if (auto b = boolean(v, "quiet")) c.quiet = *b;
                 } else if (k == "inputs") {
                     load_inputs(v, c);
                 } else if (k == "plugins") {
                     load_plugins(key, v, c);
                 } else if (k == "symbols") {
                     load_symbols(v, c);
                 } else if (k == "filters") {
                     for (auto& [s, n] : strings(v, "filters")) {
                         SourcePos p = pos(n);
                         // The filter text starts after the quote, if quoted.
                         if (n.Tag() == "!" && p.line > 0) p.column += 1;
                         c.filters.push_back({s, p});
                     }
                 } else if (k == "analyses") {
                     load_analyses(v, c);
                 } else if (k == "outputs") {
                     outputs = v;
                 }
             });
        if (c.inputs.empty() && errors_.empty() && !inputs_given)
            error(root, "no inputs: list trace files under 'inputs' or give them after the run file");
        if (outputs) load_outputs(outputs, c);
    }

    // The run file's plugins: folders to load plugins from, plugins to load or skip by name.
    void load_plugins(const YAML::Node& key, const YAML::Node& v, RunConfig& c) {
        c.plugins_pos = pos(key);
        keys(v, "plugins", {"paths", "load", "skip"},
             [&](const std::string& pk, const YAML::Node&, const YAML::Node& pv) {
                 for (auto& [s, n] : strings(pv, "plugins." + pk)) {
                     if (pk == "paths") {
                         std::error_code ec;
                         std::string p = resolve(s);
                         if (!fs::is_directory(p, ec))
                             error(n, "plugin folder '" + p + "' does not exist");
                         else
                             c.plugin_paths.push_back(p);
                     } else {
                         (pk == "load" ? c.plugin_load : c.plugin_skip).push_back(s);
                         c.plugin_name_pos.emplace(s, pos(n));
                     }
                 }
             });
    }

    // The run file's outputs: a file per format, relative to outputs.dir when given.
    void load_outputs(const YAML::Node& outputs, RunConfig& c) {
        std::string out_dir;
        if (outputs.IsMap() && outputs["dir"])
            if (auto s = scalar(outputs["dir"], "outputs.dir")) out_dir = *s;
        keys(outputs, "outputs",
             {"dir", "text", "json", "csv", "sqlite", "perfetto", "perfetto-trace",
              "perfetto-trace-compact-sched", "html"},
             [&](const std::string& k, const YAML::Node&, const YAML::Node& v) {
                 if (k == "dir") return;
                 if (k == "perfetto-trace-compact-sched") {
                     if (auto b = boolean(v, "outputs." + k)) c.outputs.perfetto_compact_sched = *b;
                     return;
                 }
                 auto s = scalar(v, "outputs." + k);
                 if (!s || s->empty()) return;
                 // Outputs are relative to the working directory (inputs to the YAML file):
                 // the same study run from elsewhere writes there. Folders are made at run time.
                 std::string p = *s;
                 if (!out_dir.empty() && !fs::path(p).is_absolute()) p = (fs::path(out_dir) / p).string();
                 std::string* slot = k == "text"             ? &c.outputs.text
                                     : k == "json"           ? &c.outputs.json
                                     : k == "csv"            ? &c.outputs.csv
                                     : k == "sqlite"         ? &c.outputs.sqlite
                                     : k == "html"           ? &c.outputs.html
                                     : k == "perfetto-trace" ? &c.outputs.perfetto_trace
                                                             : &c.outputs.perfetto;
                 *slot = p;
                 c.outputs.pos[k] = pos(v);
             });
    }

    void load_inputs(const YAML::Node& v, RunConfig& c) {
        if (!v.IsSequence()) {
            error(v, "inputs must be a list of trace files");
            return;
        }
        for (const auto& e : v) {
            InputSpec in;
            YAML::Node at = e;
            if (e.IsScalar()) {
                in.path = e.Scalar();
            } else {
                keys(e, "an input", {"path", "name", "options"},
                     [&](const std::string& k, const YAML::Node&, const YAML::Node& x) {
                         if (k == "options") {
                             load_input_options(x, in);
                         } else if (auto s = scalar(x, "inputs." + k)) {
                             (k == "path" ? in.path : in.name) = *s;
                             if (k == "path") at.reset(x);  // = would assign into the input node
                         }
                     });
                if (e.IsMap() && !e["path"]) {
                    error(e, "an input needs a 'path'");
                    continue;
                }
                if (!e.IsMap()) continue;
            }
            in.path = resolve(in.path);
            in.pos = pos(at);
            if (in.name.empty()) in.name = fs::path(in.path).stem().string();
            if (check_file(at, in.path, "input")) c.inputs.push_back(std::move(in));
        }
    }

    // options: {PLUGIN: {NAME: VALUE, ...}, ...}; whether the plugin has the option is checked
    // once the plugins are loaded.
    void load_input_options(const YAML::Node& v, InputSpec& in) {
        if (!v.IsMap()) {
            if (!v.IsNull()) error(v, "an input's options must map a plugin's name to its options");
            return;
        }
        for (const auto& by_plugin : v) {
            auto plugin = scalar(by_plugin.first, "a plugin name");
            if (!plugin) continue;
            const YAML::Node& options = by_plugin.second;
            if (!options.IsMap()) {
                error(options, "options." + *plugin + " must map option names to values");
                continue;
            }
            for (const auto& kv : options) {
                auto name = scalar(kv.first, "an option name");
                auto value = scalar(kv.second, "option '" + *plugin + "." + (name ? *name : "?") + "'");
                if (!name || !value) continue;
                // A key --set made has no place of its own: the --set's.
                SourcePos name_pos = pos(kv.first);
                if (name_pos.line == 0) name_pos = pos(kv.second);
                in.options.push_back(
                    {*plugin, *name, resolve_option_files(*value), pos(kv.second), name_pos});
            }
        }
    }
    // Option values name files as report's -O does (FILE[:BASE],...): a relative FILE at the start
    // of an item is relative to this file, as the inputs are, when it is there.
    std::string resolve_option_files(const std::string& value) const {
        std::string out;
        for (size_t at = 0; at <= value.size();) {
            size_t comma = value.find(',', at);
            if (comma == std::string::npos) comma = value.size();
            std::string item = value.substr(at, comma - at);
            const size_t colon = item.find(':');
            const std::string file = item.substr(0, colon);
            std::error_code ec;
            if (!file.empty() && fs::path(file).is_relative() && fs::is_regular_file(dir_ / file, ec))
                item = resolve(file) + (colon == std::string::npos ? "" : item.substr(colon));
            out += (at ? "," : "") + item;
            at = comma + 1;
        }
        return out;
    }

    void load_symbols(const YAML::Node& v, RunConfig& c) {
        // symbols: {DOMAIN: FILE, ...}; "kernel" is the host, other names are guests.
        if (!v.IsMap()) {
            if (!v.IsNull())
                error(v, "symbols must map a domain (kernel or a guest's name) to a symbol file");
            return;
        }
        for (const auto& kv : v) {
            auto d = scalar(kv.first, "a symbol domain");
            auto f = scalar(kv.second, "a symbol file");
            if (!d || !f) continue;
            std::string p = resolve(*f);
            if (check_file(kv.second, p, "symbol file")) c.symbols.push_back({*d, p, pos(kv.second)});
        }
    }

    void load_analyses(const YAML::Node& v, RunConfig& c) {
        if (!v.IsMap()) {
            if (!v.IsNull()) error(v, "analyses must map analysis names (e.g. sched.latency) to parameters");
            return;
        }
        for (const auto& kv : v) {
            auto name = scalar(kv.first, "an analysis name");
            if (!name) continue;
            AnalysisRun run;
            run.name = *name;
            run.pos = pos(kv.first);
            const YAML::Node& params = kv.second;
            if (params.IsMap()) {
                for (const auto& p : params) {
                    auto pn = scalar(p.first, "a parameter name");
                    auto pv = scalar(p.second, "parameter '" + (pn ? *pn : std::string("?")) + "'");
                    if (pn && pv) run.raw.push_back({*pn, *pv, pos(p.second), pos(p.first)});
                }
            } else if (params.IsScalar() && params.Scalar() == "false") {
                continue;  // switched off, e.g. with --set analyses.kvm.exits=false
            } else if (!params.IsNull() &&
                       !(params.IsScalar() && (params.Scalar().empty() || params.Scalar() == "true"))) {
                error(params, "analysis '" + run.name + "': parameters must be a mapping");
                continue;
            }
            c.analyses.push_back(std::move(run));
        }
    }

  private:
    std::string path_;
    fs::path dir_;
    std::vector<Diagnostic>& errors_;
    std::vector<std::pair<YAML::Node, int>> overrides_;
};

}  // namespace

RunConfig load_run_config(const std::string& path, const std::vector<std::string>& sets,
                          std::vector<Diagnostic>& errors, bool inputs_given) {
    RunConfig c;
    c.path = path;
    Loader loader(path, errors);
    loader.inputs_given = inputs_given;
    YAML::Node root;
    try {
        root = YAML::LoadFile(path);
    } catch (const YAML::BadFile&) {
        errors.push_back({{path, 0, 0}, "cannot read the file"});
        return c;
    } catch (const YAML::Exception& ex) {
        errors.push_back({{path, ex.mark.line + 1, ex.mark.column + 1}, ex.msg});
        return c;
    }
    if (root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
    for (size_t i = 0; i < sets.size(); ++i) {
        try {
            loader.apply_set(root, sets[i], i);
        } catch (const YAML::Exception& ex) {
            errors.push_back({{"--set " + std::to_string(i + 1), 1, 1}, ex.msg});
        }
    }
    try {
        loader.load(root, c);
    } catch (const YAML::Exception& ex) {
        errors.push_back({{path, ex.mark.line + 1, ex.mark.column + 1}, ex.msg});
    }
    return c;
}

void resolve_analyses(RunConfig& config, const AnalysisCatalog& catalog, std::vector<Diagnostic>& errors) {
    for (auto& run : config.analyses) {
        const CatalogEntry* e = catalog.find(run.name);
        if (!e) {
            std::string known;
            for (const auto& x : catalog.entries()) known += (known.empty() ? "" : ", ") + x.spec.name;
            errors.push_back({run.pos, "unknown analysis '" + run.name + "' (loaded plugins offer: " +
                                           (known.empty() ? "none" : known) + ")"});
            continue;
        }
        std::set<std::string> given;
        for (const auto& raw : run.raw) {
            const AnalysisParam* decl = nullptr;
            for (const auto& p : e->spec.params)
                if (p.name == raw.name) decl = &p;
            if (!decl) {
                std::string known;
                for (const auto& p : e->spec.params) known += (known.empty() ? "" : ", ") + p.name;
                errors.push_back({raw.name_pos, "analysis '" + run.name + "' has no parameter '" + raw.name +
                                                    "' (it takes: " + (known.empty() ? "none" : known) +
                                                    ")"});
                continue;
            }
            auto v = canonical_param(decl->type, raw.value);
            if (!v) {
                errors.push_back({raw.pos, run.name + "." + raw.name + ": '" + raw.value + "' is not " +
                                               (decl->type == ParamType::integer ? "an " : "a ") +
                                               param_type_name(decl->type)});
                continue;
            }
            run.params.values[raw.name] = *v;
            given.insert(raw.name);
        }
        for (const auto& p : e->spec.params) {
            if (given.count(p.name)) continue;
            if (p.default_value.empty()) {
                errors.push_back({run.pos, run.name + ": parameter '" + p.name + "' is required"});
                continue;
            }
            run.params.values[p.name] = canonical_param(p.type, p.default_value).value_or(p.default_value);
        }
    }
}

}  // namespace ringscope::config
