// What report knows of each event type while it prints, and the line of an event whose printing
// changes nothing (which any thread may write).
#pragma once

#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include <ringscope/text_buffer.hpp>

#include "framework/engine/print_dispatch.hpp"
#include "framework/engine/trace_set.hpp"
#include "framework/format/compiled_print.hpp"
#include "framework/output/report_line_writer.hpp"

namespace ringscope::cli {

// Per file, by type id: in_order, the types whose printing may change state (plugin overrides
// and subscribers, -r/-R, libtraceevent's bookkeeping), which only the thread that follows the
// merge may print; direct, those whose info is the compiled print fmt alone (no plugin override,
// -R, -r or report option), printed straight into the output. Filled on the first event of a type,
// so a trace's thousands of unused formats are never parsed. Sized once (type_of() reads 16-bit
// ids below small_id_bound()): other threads may read entries while the owner fills others.
class TypeTables {
  public:
    TypeTables(engine::TraceSet& set, std::span<const std::unique_ptr<engine::PrintDispatch>> dispatch,
               bool compile_direct);
    void resolve(size_t f, const EventType* t) {
        if (t->id < resolved_[f].size() && !resolved_[f][t->id]) [[unlikely]]
            fill(f, t);
    }
    bool in_order(size_t f, uint32_t id) const noexcept {
        return id >= in_order_[f].size() || in_order_[f][id];
    }
    const format::CompiledPrint* compiled(size_t f, uint32_t id) const noexcept {
        return id < direct_[f].size() ? direct_[f][id] : nullptr;
    }

  private:
    void fill(size_t f, const EventType* t);

    engine::TraceSet& set_;
    std::span<const std::unique_ptr<engine::PrintDispatch>> dispatch_;
    bool compile_direct_;
    std::vector<std::vector<char>> in_order_, resolved_;
    std::vector<std::vector<const format::CompiledPrint*>> direct_;
};

// The line of an event whose printing changes nothing (TypeTables::in_order is false): by its
// compiled print fmt, else through the file's dispatch. Safe on any thread.
void write_stateless_line(output::ReportLineWriter& w, TextBuffer& info, const format::CompiledPrint* cp,
                          bool swap, engine::PrintDispatch& dispatch, std::string_view prefix,
                          const Event& ev, std::string_view comm, int pid,
                          const output::TimeStyle& time_style, const output::CommonLayout& common);

// The layout of the common fields of file F of SET, from FIRST (every format has the same; one
// without them sends the look-up through all of them).
output::CommonLayout common_layout(engine::TraceSet& set, size_t f, const EventType* first);

}  // namespace ringscope::cli
