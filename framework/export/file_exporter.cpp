#include "framework/export/file_exporter.hpp"

#include <ringscope/trace.hpp>

#include <ctime>
#include <unordered_map>
#include <vector>

#include "framework/engine/trace_file.hpp"
#include "framework/export/content_hash.hpp"
#include "framework/export/row_binary_writer.hpp"
#include "framework/io/compression.hpp"

namespace ringscope::exporter {
namespace {

// How one event type's fields land in the typed map: integers, strings, other arrays. The three
// name arrays are the same for every event of the type, so they are encoded once.
struct TypeColumns {
    std::vector<FieldHandle> ints, strs, arrays;
    std::vector<uint8_t> arrays_elem_size;
    std::vector<uint8_t> int_names, str_names, arr_names;  // RowBinary Array(String) bytes

    explicit TypeColumns(const EventType& t) {
        std::vector<std::string_view> in, sn, an;
        for (const FieldInfo& f : t.fields) {
            const FieldHandle h{f.offset, f.size, f.flags, true};
            if (f.is_string()) {
                strs.push_back(h);
                sn.push_back(f.name);
            } else if ((f.flags & kFieldArray) || f.is_dynamic()) {
                arrays.push_back(h);
                const uint32_t es = f.elem_size;
                arrays_elem_size.push_back(es == 1 || es == 2 || es == 4 || es == 8 ? static_cast<uint8_t>(es)
                                                                                    : 1);
                an.push_back(f.name);
            } else {
                ints.push_back(h);
                in.push_back(f.name);
            }
        }
        int_names = encode(in);
        str_names = encode(sn);
        arr_names = encode(an);
    }

    static std::vector<uint8_t> encode(std::span<const std::string_view> names) {
        RowBinaryWriter w;
        w.strings(names);
        return w.bytes();
    }
};

// "Linux HOST 6.1.0 ..." -> HOST.
std::string host_of(const std::string& uname) {
    size_t a = uname.find(' ');
    if (a == std::string::npos) return {};
    size_t b = uname.find(' ', a + 1);
    return uname.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
}

class EventBatcher {
  public:
    EventBatcher(uint64_t file_id, std::string file, std::string host)
        : file_id_(file_id), file_(std::move(file)), host_(std::move(host)) {}

    void add(uint64_t seq, const Event& ev) {
        auto it = types_.find(ev.type_ptr());
        if (it == types_.end()) it = types_.emplace(ev.type_ptr(), TypeColumns(ev.type())).first;
        const TypeColumns& c = it->second;
        RowBinaryWriter& w = rows_;
        w.u64(file_id_);
        w.u64(seq);
        w.string(file_);
        w.string(host_);
        w.u64(ev.timestamp());
        w.u32(static_cast<uint32_t>(ev.cpu()));
        w.i32(ev.pid());
        w.string(ev.comm());
        w.string(ev.system());
        w.string(ev.name());
        w.raw(c.int_names);
        w.array_size(c.ints.size());
        for (const FieldHandle& h : c.ints) w.i64(ev.integer(h));
        w.raw(c.str_names);
        w.array_size(c.strs.size());
        for (const FieldHandle& h : c.strs) w.string(ev.str(h));
        w.raw(c.arr_names);
        w.array_size(c.arrays.size());
        for (size_t i = 0; i < c.arrays.size(); ++i) {
            const FieldHandle& h = c.arrays[i];
            const uint32_t es = c.arrays_elem_size[i];
            auto bytes = ev.bytes(h);
            const uint32_t base = static_cast<uint32_t>(bytes.data() - ev.payload().data());
            w.array_size(bytes.size() / es);
            // Elements through the event's own reader: the trace's byte order and signedness.
            for (uint32_t at = 0; at + es <= bytes.size(); at += es) {
                const FieldHandle eh{base + at, es, h.flags, true};
                w.i64((h.flags & kFieldSigned) ? ev.i64(eh) : static_cast<int64_t>(ev.u64(eh)));
            }
        }
        ++rows_count_;
    }

    size_t rows() const noexcept { return rows_count_; }
    const std::vector<uint8_t>& bytes() const noexcept { return rows_.bytes(); }
    void clear() noexcept {
        rows_.clear();
        rows_count_ = 0;
    }

  private:
    uint64_t file_id_;
    std::string file_, host_;
    std::unordered_map<const EventType*, TypeColumns> types_;
    RowBinaryWriter rows_;
    size_t rows_count_ = 0;
};

Expected<uint64_t> count_answer(Expected<std::string> answer, const std::string& sql) {
    if (!answer) return std::move(answer).error();
    char* end = nullptr;
    uint64_t n = std::strtoull(answer->c_str(), &end, 10);
    if (end == answer->c_str()) return Error(Errc::corrupt, "unexpected answer '" + *answer + "' to: " + sql);
    return n;
}

}  // namespace

Expected<FileExportResult> FileExporter::run(const std::string& path) {
    FileExportResult result;
    result.path = path;
    TraceOpenOptions open_options;
    open_options.load_plugins = false;  // the events as recorded: no print overrides needed
    auto trace = Trace::open(path, open_options);
    if (!trace) return std::move(trace).error().in_file(path);
    // The SDK's context is the engine's TraceFile: it holds the file's options.
    const auto* file = dynamic_cast<const engine::TraceFile*>(&trace->context());
    if (!file) return Error(Errc::unsupported, "not a trace.dat file").in_file(path);
    const io::TraceDatOptions& opts = file->reader().options();
    const uint64_t trace_id = opts.trace_id.value_or(0);
    const std::string uname = opts.uname.value_or("");
    const std::string host = host_of(uname);
    const uint64_t file_bytes = file->reader().file()->size();

    auto hash = ContentHash::of_file(path);
    if (!hash) return std::move(hash).error();
    result.file_id = file_id(trace_id, *hash);
    auto fail = [&](Error e) { return std::move(e).in_file(path); };

    const std::string exported_sql = schema_.file_is_exported(result.file_id);
    auto exported = count_answer(client_.query(exported_sql), exported_sql);
    if (!exported) return fail(std::move(exported).error());
    if (*exported > 0) {
        result.already_exported = true;
        counters_.input_bytes += file_bytes;
        return result;
    }
    if (auto dropped = client_.query(schema_.drop_file_events(result.file_id)); !dropped)
        return fail(std::move(dropped).error());

    auto compressor = io::Compressor::create(io::Compression::zlib, 1);  // speed over ratio: LAN uploads
    std::vector<uint8_t> deflated;
    EventBatcher batcher(result.file_id, path, host);
    uint64_t seq = 0, batch_first = 0;
    auto flush = [&]() -> Status {
        if (batcher.rows() == 0) return Status::success();
        if (Status s = compressor->compress(batcher.bytes(), deflated); !s) return s;
        const uint64_t first = batch_first, end = seq, expect = batcher.rows();
        const std::string count_sql = schema_.count_batch(result.file_id, first, end);
        auto landed = [&]() -> Expected<bool> {
            auto n = count_answer(client_.query(count_sql), count_sql);
            if (!n) return std::move(n).error();
            // An INSERT of one block is atomic: all of it or none. Anything else is not ours to fix.
            if (*n != 0 && *n != expect)
                return Error(Errc::corrupt, "batch of seq " + std::to_string(first) + ".." +
                                                std::to_string(end) + " holds " + std::to_string(*n) +
                                                " rows, not " + std::to_string(expect));
            return *n == expect;
        };
        if (Status s = client_.insert(schema_.insert_events(), deflated, landed); !s) return s;
        ++result.batches;
        result.sent_bytes += deflated.size();
        counters_.sent_bytes += deflated.size();
        counters_.events += batcher.rows();
        batcher.clear();
        batch_first = seq;
        if (options_.fail_after_batches && result.batches >= options_.fail_after_batches)
            return Error(Errc::io, "stopped after " + std::to_string(result.batches) +
                                       " batches (RINGSCOPE_EXPORT_FAIL_AFTER_BATCHES)");
        return Status::success();
    };
    for (const Event& ev : trace->events()) {
        batcher.add(seq++, ev);
        if (batcher.rows() >= options_.batch_rows)
            if (Status s = flush(); !s) return fail(std::move(s).error());
    }
    if (!trace->status()) return fail(trace->status().error());
    if (Status s = flush(); !s) return fail(std::move(s).error());
    result.events = seq;

    RowBinaryWriter row;
    row.u64(result.file_id);
    row.string(path);
    row.u64(trace_id);
    row.u64(*hash);
    row.string(uname);
    row.string(host);
    row.u32(static_cast<uint32_t>(file->cpu_count()));
    row.u64(result.events);
    row.u64(file_bytes);
    row.u32(static_cast<uint32_t>(std::time(nullptr)));
    if (Status s = compressor->compress(row.bytes(), deflated); !s) return fail(std::move(s).error());
    auto files_landed = [&]() -> Expected<bool> {
        auto n = count_answer(client_.query(exported_sql), exported_sql);
        if (!n) return std::move(n).error();
        return *n > 0;
    };
    if (Status s = client_.insert(schema_.insert_files(), deflated, files_landed); !s)
        return fail(std::move(s).error());
    result.sent_bytes += deflated.size();
    counters_.sent_bytes += deflated.size();
    counters_.input_bytes += file_bytes;
    return result;
}

}  // namespace ringscope::exporter
