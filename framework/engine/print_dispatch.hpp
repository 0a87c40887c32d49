// How an event's info text is produced: by the first plugin handler that overrides the print of
// its type, else by the event's own print fmt. The per-type handler lists are built once per file,
// so choosing costs one vector index per event. Also the PrintContext handed to those handlers.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <ringscope/handler.hpp>
#include <ringscope/text_buffer.hpp>

namespace ringscope::format {
class CompiledPrint;
}

namespace ringscope::engine {

class TraceFile;

// What the walk printing the events offers a printer that looks ahead (PrintContext::peek_next,
// take_next): the record after the one being printed, and taking it out of the walk.
class RecordLookahead {
  public:
    virtual ~RecordLookahead() = default;
    virtual std::optional<Event> peek() = 0;
    virtual bool take() = 0;
};

class PrintDispatch final : public PrintContext {
  public:
    // `handlers` outlive the dispatch; their order is the priority order.
    PrintDispatch(TraceFile& file, std::span<EventHandler* const> handlers);

    // -n: the events of this type print with their print fmt whatever the plugins say.
    void disable_overrides(uint32_t type_id);
    // -r: the events of this type print their fields raw (tep_print_fields).
    void set_raw(uint32_t type_id);

    // A plugin handler that threw while printing: its partial text is dropped and the event
    // prints with its default format; the caller reports the fault (take_fault) and goes on.
    struct HandlerFault {
        const EventHandler* handler;
        std::string what;
    };

    // A report option's handler (-w): it subscribes like any handler and may append to the lines of
    // the events it subscribes to. Called after the constructor; `h` outlives the dispatch.
    void add_annotator(EventHandler* h);

    // The info part of the line (what follows "name: ").
    void print_info(const Event& ev, TextBuffer& out);
    // Appends the annotators' text to a finished info (raw or not). trace-cmd drops the line's
    // trailing newline before -w appends to it, so this does the same when something is appended.
    void annotate(const Event& ev, TextBuffer& info);
    // The fault of the last print_info, if any (and forgets it).
    std::optional<HandlerFault> take_fault() {
        std::optional<HandlerFault> f = std::move(fault_);
        fault_.reset();
        return f;
    }
    // Handlers that subscribed to this type (on_event is called for each printed event).
    std::span<EventHandler* const> subscribers(uint32_t type_id) const noexcept {
        return type_id < subscribers_.size() ? std::span<EventHandler* const>(subscribers_[type_id])
                                             : std::span<EventHandler* const>();
    }
    bool has_overrides() const noexcept { return any_override_; }
    // A plugin handler may print events of this type (and may change state while doing so).
    bool overridden(uint32_t type_id) const noexcept {
        return type_id < types_.size() && !types_[type_id].overrides.empty();
    }
    bool raw(uint32_t type_id) const noexcept { return type_id < types_.size() && types_[type_id].raw; }

    // The look-ahead of the walk that prints (report's merge); null: printers cannot look ahead.
    // `l` outlives the calls of print_info made while it is set.
    void set_lookahead(RecordLookahead* l) noexcept { lookahead_ = l; }

    // PrintContext
    void print_default(const Event& ev, TextBuffer& out) override;
    void print_field(const Event& ev, std::string_view field, TextBuffer& out) override;
    void register_comm(int pid, std::string_view comm) override;
    std::optional<Event> peek_next() override { return lookahead_ ? lookahead_->peek() : std::nullopt; }
    bool take_next() override { return lookahead_ && lookahead_->take(); }

  private:
    struct PerType {
        std::vector<EventHandler*> overrides;
        std::vector<EventHandler*> annotators;
        bool raw = false;
        // Set once an event of this type printed with its compiled print fmt and nothing can
        // override it: later events of the same type (pointer: an ID may be re-declared) print
        // straight from it, without the catalog's per-event look-up.
        const EventType* compiled_type = nullptr;
        const format::CompiledPrint* compiled = nullptr;
    };
    PerType* slot(uint32_t type_id) noexcept { return type_id < types_.size() ? &types_[type_id] : nullptr; }
    // Calls fn(type id) for each type of the file that `h` subscribes to (and that has a table slot).
    template <typename Fn>
    void for_each_subscribed_type(const EventHandler& h, Fn&& fn) const;

    TraceFile& file_;
    std::vector<PerType> types_;                           // by type id
    std::vector<std::vector<EventHandler*>> subscribers_;  // by type id
    bool any_override_ = false;
    std::optional<HandlerFault> fault_;
    RecordLookahead* lookahead_ = nullptr;
};

}  // namespace ringscope::engine
