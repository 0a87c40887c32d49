// What an analysis produces: named tables of typed cells. The framework renders them as aligned
// text, JSON or CSV, and feeds them to the other outputs.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace ringscope {

using Cell = std::variant<std::monostate, int64_t, uint64_t, double, std::string>;

struct ResultTable {
    std::string name;                  // e.g. "sched.latency.tasks"
    std::vector<std::string> columns;
    std::vector<std::vector<Cell>> rows;
};

class ResultSink {
public:
    virtual ~ResultSink() = default;
    virtual void add_table(ResultTable table) = 0;
};

}  // namespace ringscope
