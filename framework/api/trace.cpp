// ringscope::Trace: the SDK's iteration API over the engine (one file's top buffer, as
// libtracecmd's tracecmd_iterate_events walks it).
#include <ringscope/trace.hpp>

#include <ringscope/filter.hpp>
#include <ringscope/selection.hpp>

#include <algorithm>
#include <limits>

#include "framework/api/read_position.hpp"
#include "framework/engine/event_merger.hpp"
#include "framework/engine/print_dispatch.hpp"
#include "framework/engine/trace_file.hpp"
#include "framework/plugin/default_plugins.hpp"

namespace ringscope {

struct Trace::Impl {
    std::unique_ptr<engine::TraceFile> file;
    std::vector<std::unique_ptr<EventHandler>> handlers;  // plugin print overrides, per trace
    std::unique_ptr<engine::PrintDispatch> dispatch;
    engine::EventMerger merger;
    enum class Mode { fresh, forward, reverse } mode = Mode::fresh;
    void* priv = nullptr;

    struct Follower {
        std::string system, name;
        Callback callback;
    };
    std::vector<Follower> followers;
    Callback missed;
    FilterSet filters;
    bool filtered = false;  // !filters.empty(), asked once per event
    Status status;

    Status build_merger() {
        engine::EventMerger fresh;
        auto streams = file->open_streams(0);
        if (!streams) return std::move(streams).error();
        int n = 0;
        for (auto& s : *streams) fresh.add(engine::MergeSource{file.get(), 0, 0, n++, std::move(s)});
        merger = std::move(fresh);
        return Status::success();
    }

    Status ensure(Mode m) {
        if (mode == Mode::fresh) {
            if (Status st = build_merger(); !st) return st;
        }
        if (mode != m) {
            if (m == Mode::forward)
                merger.rewind();
            else
                merger.seek_end();
            mode = m;
        }
        return Status::success();
    }

    Event make_event(const engine::Record& r) const {
        const EventType* t = file->type_of(r.data, r.size);
        return Event(t, file.get(), {r.data, r.size}, r.ts, r.cpu, r.missed, r.trailing);
    }

    // libtracecmd's order: missed-events follower (before filters), filters, followers, callback.
    int deliver(Trace& self, const Event& ev, int cpu, const Callback* cb) {
        if (ev.missed_before() != 0 && missed) {
            if (int r = missed(self, ev, cpu)) return r;
        }
        if (filtered && !filters.accept(ev)) return 0;
        for (auto& f : followers) {
            if ((f.system.empty() || f.system == ev.system()) && f.name == ev.name()) {
                if (int r = f.callback(self, ev, cpu)) return r;
            }
        }
        return cb && *cb ? (*cb)(self, ev, cpu) : 0;
    }
};

Trace::Trace(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Trace::Trace(Trace&&) noexcept = default;
Trace& Trace::operator=(Trace&&) noexcept = default;
Trace::~Trace() = default;

Expected<Trace> Trace::open(const std::string& path, const TraceOpenOptions& options) {
    engine::OpenOptions oo;
    oo.raw_ts = options.raw_timestamps;
    auto file = engine::TraceFile::open(path, oo, options.resolvers);
    if (!file) return std::move(file).error();
    auto impl = std::make_unique<Impl>();
    impl->file = std::move(*file);
    std::vector<EventHandler*> raw;
    if (options.load_plugins) {
        for (const auto& h : plugin::default_plugin_host().handlers()) {
            if (auto made = h.factory()) {
                raw.push_back(made.get());
                impl->handlers.push_back(std::move(made));
            }
        }
    }
    impl->dispatch = std::make_unique<engine::PrintDispatch>(*impl->file, raw);
    return Trace(std::move(impl));
}

Expected<Trace> Trace::open_fd(int fd, const TraceOpenOptions& options) {
    return open("/proc/self/fd/" + std::to_string(fd), options);
}

const std::string& Trace::path() const noexcept {
    return impl_->file->path();
}
const TraceContext& Trace::context() const noexcept {
    return *impl_->file;
}
TraceContext& Trace::context() noexcept {
    return *impl_->file;
}
int Trace::cpu_count() const noexcept {
    return impl_->file->cpu_count();
}
void Trace::set_private(void* data) noexcept {
    impl_->priv = data;
}
void* Trace::get_private() const noexcept {
    return impl_->priv;
}
const Status& Trace::status() const noexcept {
    return impl_->status;
}

void Trace::print_info(const Event& event, TextBuffer& out) const {
    impl_->dispatch->print_info(event, out);
}

Status Trace::follow_event(std::string_view system, std::string_view name, Callback callback) {
    if (name.empty() || !callback)
        return Error(Errc::invalid_argument, "follow_event needs an event name and a callback");
    const bool known = !impl_->file->formats()
                            .types_if([&](std::string_view sys, std::string_view ev) {
                                return (system.empty() || sys == system) && ev == name;
                            })
                            .empty();
    if (!known) {
        return Error(Errc::not_found, "no event " +
                                          (system.empty() ? std::string() : std::string(system) + "/") +
                                          std::string(name) + " in " + path());
    }
    impl_->followers.push_back({std::string(system), std::string(name), std::move(callback)});
    return Status::success();
}

void Trace::follow_missed_events(Callback callback) {
    impl_->missed = std::move(callback);
}

Status Trace::add_filter(std::string_view filter, bool neg) {
    std::vector<const EventType*> types = impl_->file->types();
    Status st = impl_->filters.add(filter, neg, types);
    impl_->filtered = !impl_->filters.empty();
    if (!st) return Error(std::move(st).error()).in_file(path());
    return st;
}

Expected<std::vector<Trace>> Trace::open_selected(const std::vector<std::string>& paths,
                                                  const TraceOpenOptions& options,
                                                  const EventSelection& sel) {
    std::vector<Trace> traces;
    traces.reserve(paths.size());
    for (const auto& p : paths) {
        auto t = Trace::open(p, options);
        if (!t) return std::move(t).error();
        if (Status st = t->select(sel); !st) return std::move(st).error();
        traces.push_back(std::move(*t));
    }
    return traces;
}

Status Trace::select(const EventSelection& sel) {
    Impl& m = *impl_;
    std::vector<const EventType*> types = m.file->types();
    auto named = [&](Status st) {
        if (!st) return Status(Error(std::move(st).error()).in_file(path()));
        return st;
    };
    for (const auto& [text, neg] : sel.filters)
        if (Status st = m.filters.add(text, neg, types); !st) return named(std::move(st));
    for (const auto& e : sel.events)
        if (Status st = m.filters.limit_events(e, types); !st) return named(std::move(st));
    std::vector<int> pids = sel.pids;
    for (const auto& comm : sel.comms) {
        m.file->comms().for_each([&](int pid, std::string_view name) {
            if (name == comm) pids.push_back(pid);
        });
    }
    // A --comm no task has selects nothing (rather than everything).
    if (!sel.comms.empty() && pids.empty()) pids.push_back(-2);
    m.filters.add_pids(pids);
    m.filters.limit_cpus(sel.cpus);
    m.filters.limit_time(sel.from_ns, sel.to_ns);
    m.filtered = !m.filters.empty();
    return Status::success();
}

int Trace::reset() {
    Impl& m = *impl_;
    if (m.mode == Impl::Mode::fresh) return 0;
    m.merger.rewind();
    m.mode = Impl::Mode::forward;
    m.filters.reset();
    return 0;
}

int Trace::iterate(const Callback& callback, std::span<const int> cpus) {
    Impl& m = *impl_;
    if (Status st = m.ensure(Impl::Mode::forward); !st) {
        m.status = st;
        return -1;
    }
    const engine::Record* rec;
    engine::MergeSource* src;
    while (m.merger.next(rec, src, cpus)) {
        Event ev = m.make_event(*rec);
        if (!ev.type_ptr()) continue;
        if (int r = m.deliver(*this, ev, rec->cpu, &callback)) return r;
    }
    m.status = m.merger.status();
    return m.status ? 0 : -1;
}

int Trace::iterate_reverse(const Callback& callback, std::span<const int> cpus, bool cont) {
    Impl& m = *impl_;
    if (!cont || m.mode != Impl::Mode::reverse) {
        if (Status st = m.ensure(Impl::Mode::reverse); !st) {
            m.status = st;
            return -1;
        }
        if (!cont) m.merger.seek_end();
    }
    const engine::Record* rec;
    engine::MergeSource* src;
    while (m.merger.next_back(rec, src, cpus)) {
        Event ev = m.make_event(*rec);
        if (!ev.type_ptr()) continue;
        if (int r = m.deliver(*this, ev, rec->cpu, &callback)) return r;
    }
    m.status = m.merger.status();
    return m.status ? 0 : -1;
}

int Trace::iterate_multi(std::span<Trace* const> traces, const Callback& callback) {
    std::vector<int> base;
    int n = 0;
    for (Trace* t : traces) {
        if (Status st = t->impl_->ensure(Impl::Mode::forward); !st) {
            t->impl_->status = st;
            return -1;
        }
        base.push_back(n);
        n += static_cast<int>(t->impl_->merger.sources().size());
    }
    for (;;) {
        size_t best_t = 0;
        engine::MergeSource* best = nullptr;
        const engine::Record* best_rec = nullptr;
        for (size_t i = 0; i < traces.size(); ++i) {
            const engine::Record* rec;
            engine::MergeSource* s = traces[i]->impl_->merger.peek_next(rec);
            if (s && (!best_rec || rec->ts < best_rec->ts)) {
                best = s;
                best_rec = rec;
                best_t = i;
            }
        }
        if (!best) break;
        Impl& m = *traces[best_t]->impl_;
        Event ev = m.make_event(*best_rec);
        const int cpu = base[best_t] + best->global_cpu;
        best->stream.advance();
        if (!ev.type_ptr()) continue;
        if (int r = m.deliver(*traces[best_t], ev, cpu, &callback)) return r;
    }
    int rc = 0;
    for (Trace* t : traces) {
        t->impl_->status = t->impl_->merger.status();
        if (!t->impl_->status) rc = -1;
    }
    return rc;
}

Trace::EventRange::iterator Trace::EventRange::begin() {
    iterator it;
    it.trace_ = trace_;
    it.reverse_ = reverse_;
    Impl& m = *trace_->impl_;
    Status st = m.ensure(reverse_ ? Impl::Mode::reverse : Impl::Mode::forward);
    if (!st) {
        m.status = st;
        return it;
    }
    if (reverse_)
        m.merger.seek_end();
    else
        m.merger.rewind();
    m.filters.reset();
    it.done_ = false;
    ++it;
    return it;
}

Trace::EventRange::iterator& Trace::EventRange::iterator::operator++() {
    Impl& m = *trace_->impl_;
    const engine::Record* rec;
    engine::MergeSource* src;
    const bool filtered = m.filtered;
    if (!reverse_ && !filtered) {
        // The counting loop: nothing but the merge and the type look-up per event.
        while (m.merger.next(rec, src)) {
            current_ = m.make_event(*rec);
            if (current_.type_ptr()) return *this;
        }
    } else {
        while (reverse_ ? m.merger.next_back(rec, src) : m.merger.next(rec, src)) {
            current_ = m.make_event(*rec);
            if (!current_.type_ptr()) continue;
            if (filtered && !m.filters.accept(current_)) continue;
            return *this;
        }
    }
    m.status = m.merger.status();
    done_ = true;
    return *this;
}

}  // namespace ringscope

namespace ringscope::api {

ReadPosition read_position(Trace& trace) {
    ReadPosition p;
    for (const auto& s : trace.impl().merger.sources()) {
        p.bytes_loaded += s.stream.data_bytes_loaded();
        p.bytes_total += s.stream.data_bytes();
        p.pages_total += s.stream.page_count();
    }
    return p;
}

engine::TraceFile& trace_file(Trace& trace) {
    return *trace.impl().file;
}

uint64_t pages_loaded_in_process() noexcept {
    return engine::CpuStream::pages_loaded_in_process();
}

}  // namespace ringscope::api
