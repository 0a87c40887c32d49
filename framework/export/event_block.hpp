// A batch of one file's events as a Native block of DB.events (kEventColumns): each event's common
// columns and its fields split into the typed map (integers, strings, other arrays).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include <ringscope/event.hpp>

#include "framework/export/clickhouse_schema.hpp"
#include "framework/export/native_block.hpp"

namespace ringscope::exporter {

class EventBlock {
  public:
    EventBlock(uint64_t file_id, std::string file, std::string host)
        : file_id_(file_id), file_(std::move(file)), host_(std::move(host)) {}

    // SEQ: the event's position in its file's time order.
    void add(uint64_t seq, const Event& ev);
    size_t rows() const noexcept { return rows_; }
    // The block, piece by piece, into OUT (a DeflateStream, or NativeBytes in tests).
    template <class Sink>
    void encode(Sink& out) const {
        NativeBlockWriter<Sink> block(out, kEventColumnCount, rows_);
        for_each_column([&](std::string_view name, std::string_view type,
                            std::span<const NativeBytes* const> parts) { block.column(name, type, parts); });
    }
    void clear() noexcept;

  private:
    // Where one event type's fields go; the names are the same for each of its events.
    struct TypeFields {
        std::vector<FieldHandle> ints, strs, arrays;
        std::vector<uint8_t> array_elem_size;
        std::vector<std::string> int_names, str_names, arr_names;
        explicit TypeFields(const EventType& t);
    };
    const TypeFields& fields_of(const Event& ev);
    using ColumnVisitor = std::function<void(std::string_view name, std::string_view type,
                                             std::span<const NativeBytes* const> parts)>;
    void for_each_column(const ColumnVisitor& visit) const;

    uint64_t file_id_;
    std::string file_, host_;
    std::unordered_map<const EventType*, TypeFields> types_;
    size_t rows_ = 0;
    NativeBytes file_id_col_, seq_, file_col_, host_col_, ts_, cpu_, pid_, comm_, system_, name_;
    NativeArrayOffsets int_offsets_, str_offsets_, arr_offsets_, arr_elem_offsets_;
    NativeBytes int_names_, ints_, str_names_, strs_, arr_names_, arr_elems_;
};

}  // namespace ringscope::exporter
