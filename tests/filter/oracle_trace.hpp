// Loads a trace with Debian's libtracecmd (the oracle) and presents its records and event types
// to ringscope: raw record bytes, EventTypes built from the oracle's parsed formats (until
// framework/format parses them itself), the oracle's comm table and symbols as a TraceContext.
// For tests and benchmarks only.
#pragma once

#include <sched.h>

#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <event-parse.h>

#include <ringscope/context.hpp>
#include <ringscope/event.hpp>
#include <ringscope/event_type.hpp>
#include <ringscope/resolver.hpp>

// trace-cmd.h pulls in tracefs.h, which does not compile as C++; the few calls used here.
extern "C" {
struct tracecmd_input;
struct tracecmd_filter;
tracecmd_input* tracecmd_open(const char* file, int flags);
void tracecmd_close(tracecmd_input* handle);
tep_handle* tracecmd_get_tep(tracecmd_input* handle);
int tracecmd_iterate_events(tracecmd_input* handle, cpu_set_t* cpus, int cpu_size,
                            int (*callback)(tracecmd_input*, tep_record*, int, void*), void* data);
tracecmd_filter* tracecmd_filter_add(tracecmd_input* handle, const char* filter_str, bool neg);
}

namespace ringscope::filter_test {

struct Record {
    int cpu = 0;
    uint64_t ts = 0;
    uint64_t offset = 0;
    std::vector<uint8_t> data;
};

class OracleResolvers : public ResolverService {
  public:
    explicit OracleResolvers(tep_handle* tep) : tep_(tep) {}
    void add(std::string, std::shared_ptr<const SymbolResolver>) override {}
    std::optional<Symbol> lookup(std::string_view domain, uint64_t addr) const override {
        const char* name = nullptr;
        unsigned long long start = 0;
        unsigned long size = 0;
        if (domain != kKernelDomain || !tep_find_function_info(tep_, addr, &name, &start, &size))
            return std::nullopt;
        Symbol s;
        s.name = name;
        s.start = start;
        return s;
    }
    bool has(std::string_view d) const override { return d == kKernelDomain; }
    std::vector<std::string> domains() const override { return {std::string(kKernelDomain)}; }

  private:
    tep_handle* tep_;
};

// The oracle's comm table and symbols, seen through ringscope's TraceContext.
class OracleContext : public TraceContext {
  public:
    explicit OracleContext(tep_handle* tep) : tep_(tep), resolvers_(tep) {}
    std::string_view comm(int pid) const override { return tep_data_comm_from_pid(tep_, pid); }
    void register_comm(int, std::string_view) override {}
    const EventType* type_by_id(uint32_t) const override { return nullptr; }
    const EventType* find_type(std::string_view, std::string_view) const override { return nullptr; }
    const ResolverService& resolvers() const override { return resolvers_; }
    std::string_view source_name() const override { return "oracle"; }
    int cpu_count() const override { return tep_get_cpus(tep_); }
    int long_size() const override { return tep_get_long_size(tep_); }
    bool big_endian() const override { return tep_is_file_bigendian(tep_); }

  private:
    tep_handle* tep_;
    OracleResolvers resolvers_;
};

inline FieldInfo to_field(const tep_format_field* f) {
    FieldInfo out;
    out.name = f->name;
    out.type = f->type;
    out.offset = static_cast<uint32_t>(f->offset);
    out.size = static_cast<uint32_t>(f->size);
    out.elem_size = f->elementsize;
    out.array_len = f->arraylen;
    if (f->flags & TEP_FIELD_IS_SIGNED) out.flags |= kFieldSigned;
    if (f->flags & TEP_FIELD_IS_ARRAY) out.flags |= kFieldArray;
    if (f->flags & TEP_FIELD_IS_DYNAMIC) out.flags |= kFieldDynamic;
    if (f->flags & TEP_FIELD_IS_RELATIVE) out.flags = (out.flags & ~uint32_t(kFieldDynamic)) | kFieldRelLoc;
    if (f->flags & TEP_FIELD_IS_STRING) out.flags |= kFieldString;
    if (f->flags & TEP_FIELD_IS_POINTER) out.flags |= kFieldPointer;
    if (f->flags & TEP_FIELD_IS_LONG) out.flags |= kFieldLong;
    return out;
}

class Trace {
  public:
    explicit Trace(const std::string& path) : path_(path) {
        handle_ = tracecmd_open(path.c_str(), 0);
        if (!handle_) return;
        tep_ = tracecmd_get_tep(handle_);
        ctx_ = std::make_unique<OracleContext>(tep_);
        const int n = tep_get_events_count(tep_);
        for (int i = 0; i < n; ++i) {
            tep_event* e = tep_get_event(tep_, i);
            auto t = std::make_unique<EventType>();
            t->id = static_cast<uint32_t>(e->id);
            t->system = e->system;
            t->name = e->name;
            for (auto* f = e->format.common_fields; f; f = f->next) t->common_fields.push_back(to_field(f));
            for (auto* f = e->format.fields; f; f = f->next) t->fields.push_back(to_field(f));
            t->finalize();
            by_id_[t->id] = t.get();
            ptrs_.push_back(t.get());
            types_.push_back(std::move(t));
        }
        tracecmd_iterate_events(handle_, nullptr, 0, &Trace::collect, this);
    }
    ~Trace() {
        if (handle_) tracecmd_close(handle_);
    }
    bool ok() const { return handle_ && !records_.empty(); }
    tep_handle* tep() const { return tep_; }
    const std::vector<const EventType*>& types() const { return ptrs_; }
    const std::vector<Record>& records() const { return records_; }
    const EventType* type_of(const Record& r) const {
        uint16_t id;
        std::memcpy(&id, r.data.data(), 2);
        auto it = by_id_.find(id);
        return it == by_id_.end() ? nullptr : it->second;
    }
    const TraceContext* context() const { return ctx_.get(); }
    Event event(const Record& r) const { return Event(type_of(r), ctx_.get(), r.data, r.ts, r.cpu); }
    tep_record tep_rec(const Record& r) const {
        tep_record rec;
        std::memset(&rec, 0, sizeof rec);
        rec.ts = r.ts;
        rec.offset = r.offset;
        rec.size = static_cast<int>(r.data.size());
        rec.cpu = r.cpu;
        rec.data = const_cast<uint8_t*>(r.data.data());
        return rec;
    }
    const std::string& path() const { return path_; }

  private:
    static int collect(tracecmd_input*, tep_record* rec, int, void* data) {
        auto* self = static_cast<Trace*>(data);
        Record r;
        r.cpu = rec->cpu;
        r.ts = rec->ts;
        r.offset = rec->offset;
        const auto* p = static_cast<const uint8_t*>(rec->data);
        r.data.assign(p, p + rec->size);
        self->records_.push_back(std::move(r));
        return 0;
    }

    std::string path_;
    tracecmd_input* handle_ = nullptr;
    tep_handle* tep_ = nullptr;
    std::unique_ptr<OracleContext> ctx_;
    std::vector<std::unique_ptr<EventType>> types_;
    std::vector<const EventType*> ptrs_;
    std::map<uint32_t, const EventType*> by_id_;
    std::vector<Record> records_;
};

}  // namespace ringscope::filter_test
