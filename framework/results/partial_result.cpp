// Reading and writing partial results (sdk/include/ringscope/partial_result.hpp).
#include <ringscope/partial_result.hpp>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "framework/io/atomic_output.hpp"

namespace ringscope {
namespace {

using json = nlohmann::json;

Error bad(const std::string& path, std::string message) {
    return Error(Errc::corrupt, "not a ringscope partial result: " + std::move(message)).in_file(path);
}

bool strings(const json& j, std::vector<std::string>& out) {
    if (!j.is_array()) return false;
    for (const auto& s : j) {
        if (!s.is_string()) return false;
        out.push_back(s.get<std::string>());
    }
    return true;
}

std::string params_text(const std::map<std::string, std::string>& params) {
    std::string s;
    for (const auto& [k, v] : params) s += (s.empty() ? "" : ", ") + k + "=" + v;
    return "{" + s + "}";
}

}  // namespace

Status write_partial(const std::string& path, const PartialResult& partial) {
    json state = json::parse(partial.state_json, nullptr, false);
    if (state.is_discarded())
        return Error(Errc::invalid_argument, "the partial state is not JSON").in_file(path);
    json doc = {{"ringscope_partial", kPartialFormat},
                {"analysis", partial.analysis},
                {"command", partial.command},
                {"params", partial.params},
                {"inputs", partial.inputs},
                {"state", std::move(state)}};
    Status s = io::write_file_atomically(path, doc.dump() + "\n");
    // The error names the temporary file; the user named the partial.
    if (!s) return Error(s.error().code(), "cannot write: " + s.error().message()).in_file(path);
    return s;
}

Expected<PartialResult> read_partial(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Error(Errc::io, std::string("cannot open: ") + std::strerror(errno)).in_file(path);
    std::stringstream text;
    text << in.rdbuf();
    if (in.bad()) return Error(Errc::io, "read error").in_file(path);
    json doc;
    try {
        doc = json::parse(text.str());
    } catch (const json::parse_error& e) {
        // e.what() repeats the position; the byte offset is what the error line carries.
        std::string what = e.what();
        if (auto colon = what.rfind(": "); colon != std::string::npos) what = what.substr(colon + 2);
        return Error(Errc::parse, "not a ringscope partial result (JSON): " + what)
            .at_offset(static_cast<int64_t>(e.byte ? e.byte - 1 : 0))
            .in_file(path);
    }
    if (!doc.is_object() || !doc.contains("ringscope_partial"))
        return bad(path, "no \"ringscope_partial\" key");
    if (doc["ringscope_partial"] != kPartialFormat)
        return bad(path, "format " + doc["ringscope_partial"].dump() + ", this ringscope reads " +
                             std::to_string(kPartialFormat));
    PartialResult p;
    const json& analysis = doc.value("analysis", json());
    if (!analysis.is_string() || analysis.get<std::string>().empty())
        return bad(path, "no \"analysis\" name");
    p.analysis = analysis.get<std::string>();
    if (!strings(doc.value("command", json()), p.command) || p.command.empty())
        return bad(path, "\"command\" is not a list of strings");
    if (!strings(doc.value("inputs", json()), p.inputs))
        return bad(path, "\"inputs\" is not a list of strings");
    const json& params = doc.value("params", json::object());
    if (!params.is_object()) return bad(path, "\"params\" is not an object");
    for (const auto& [k, v] : params.items()) {
        if (!v.is_string()) return bad(path, "parameter '" + k + "' is not a string");
        p.params[k] = v.get<std::string>();
    }
    if (!doc.contains("state") || !doc["state"].is_object()) return bad(path, "no \"state\" object");
    p.state_json = doc["state"].dump();
    return p;
}

Expected<std::vector<PartialResult>> read_partials(const std::vector<std::string>& paths) {
    if (paths.empty()) return Error(Errc::invalid_argument, "no partial result given");
    std::vector<PartialResult> parts;
    for (const auto& path : paths) {
        auto p = read_partial(path);
        if (!p) return std::move(p).error();
        if (!parts.empty()) {
            const PartialResult& first = parts.front();
            const std::string& first_path = paths.front();
            if (p->analysis != first.analysis)
                return Error(Errc::invalid_argument, "analysis '" + p->analysis + "' does not merge with '" +
                                                         first.analysis + "' of " + first_path)
                    .in_file(path);
            if (p->command != first.command)
                return Error(Errc::invalid_argument, "made by another command than " + first_path)
                    .in_file(path);
            if (p->params != first.params)
                return Error(Errc::invalid_argument, "parameters " + params_text(p->params) +
                                                         " differ from " + params_text(first.params) +
                                                         " of " + first_path)
                    .in_file(path);
        }
        parts.push_back(std::move(*p));
    }
    return parts;
}

}  // namespace ringscope
