#include "framework/results/table_json.hpp"

#include <cmath>

#include <ringscope/text_escape.hpp>

namespace ringscope::results {
namespace {

nlohmann::ordered_json cell_json(const Cell& c) {
    switch (c.index()) {
        case 1:
            return std::get<int64_t>(c);
        case 2:
            return std::get<uint64_t>(c);
        case 3: {
            double d = std::get<double>(c);
            return std::isfinite(d) ? nlohmann::ordered_json(d) : nlohmann::ordered_json();
        }
        case 4:
            return escaped(std::get<std::string>(c), TextTarget::utf8);  // nlohmann throws on bad UTF-8
        default:
            return nullptr;
    }
}

}  // namespace

nlohmann::ordered_json tables_json(const std::vector<ResultTable>& tables) {
    nlohmann::ordered_json doc = nlohmann::ordered_json::object();
    for (const auto& t : tables) {
        nlohmann::ordered_json rows = nlohmann::ordered_json::array();
        for (const auto& r : t.rows) {
            nlohmann::ordered_json row = nlohmann::ordered_json::object();
            for (size_t i = 0; i < t.columns.size() && i < r.size(); ++i)
                row[escaped(t.columns[i], TextTarget::utf8)] = cell_json(r[i]);
            rows.push_back(std::move(row));
        }
        doc[escaped(t.name, TextTarget::utf8)] = std::move(rows);
    }
    return doc;
}

}  // namespace ringscope::results
