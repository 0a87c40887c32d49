// C++ port of the example in tep_plugin_kvm_get_func(3): prints kvm_exit and kvm_entry events of
// a trace with the guest function of each rip, named from the guest's kallsyms file.
//
//   kvm_guest_funcs trace.dat guest_kallsyms_file
//
// The C example overrides a weak function of the kvm plugin (and needs -rdynamic). Here the
// program registers a resolver for the "guest" domain with the resolver service instead; the kvm
// plugin asks the service. Like the C example, the resolver returns "exit FUNC" / "enter FUNC"
// and the function's start, so the plugin appends "+0xOFF".
#include <sys/stat.h>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <ringscope/resolver.hpp>
#include <ringscope/trace.hpp>

// make_resolver_service() and load_symbol_file(): declared for <ringscope/resolver.hpp>, where
// they move; until then from the symbols framework's header (same namespace, same library).

namespace {

// Names the guest function of an address, prefixed with what the current event is.
class EventFuncResolver final : public ringscope::SymbolResolver {
  public:
    explicit EventFuncResolver(std::shared_ptr<const ringscope::SymbolResolver> kallsyms)
        : kallsyms_(std::move(kallsyms)) {}

    void set_event(std::string_view event_name) { ename_ = event_name == "kvm_exit" ? "exit" : "enter"; }

    std::optional<ringscope::Symbol> lookup(uint64_t addr) const override {
        auto sym = kallsyms_->lookup(addr);
        if (!sym) return sym;
        // The C example allocates "ENAME FUNC" per call; one buffer does here (single thread).
        name_.assign(ename_);
        name_.push_back(' ');
        name_.append(sym->name);
        sym->name = name_;
        return sym;
    }
    std::string describe() const override { return "kvm_guest_funcs: " + kallsyms_->describe(); }

  private:
    std::shared_ptr<const ringscope::SymbolResolver> kallsyms_;
    std::string_view ename_ = "enter";
    mutable std::string name_;
};

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::printf("usage: trace.dat guest_kallsyms_file\n");
        std::exit(-1);
    }
    struct stat st;
    if (stat(argv[2], &st) < 0) {
        std::perror(argv[2]);
        std::exit(-1);
    }
    auto kallsyms = ringscope::load_symbol_file(argv[2]);
    if (!kallsyms) {
        std::printf("Failed to parse %s\n", argv[2]);
        std::exit(-1);
    }
    auto resolver = std::make_shared<EventFuncResolver>(std::move(kallsyms).value());
    auto service = ringscope::make_resolver_service();
    service->add("guest", resolver);

    ringscope::TraceOpenOptions options;
    options.resolvers = service.get();
    auto trace = ringscope::Trace::open(argv[1], options);
    if (!trace) {
        std::fprintf(stderr, "%s: %s\n", argv[1], trace.error().to_string().c_str());
        std::exit(-1);
    }

    ringscope::TextBuffer line;
    auto show_event = [&](ringscope::Trace& t, const ringscope::Event& ev, int cpu) {
        resolver->set_event(ev.name());
        line.clear();
        // tep_print_event(..., "%s-%d\t%6.1000d [%03d] %s\t%s\n", COMM, PID, TIME, CPU, NAME, INFO):
        // the time in microseconds, rounded, as "%5llu.%06llu" (or "%12llu" below one second).
        line.append(ev.comm());
        line.appendf("-%d\t", ev.pid());
        unsigned long long us = (ev.timestamp() + 500) / 1000;
        if (us > 1000000)
            line.appendf("%5llu.%06llu", us / 1000000, us % 1000000);
        else
            line.appendf("%12llu", us);
        line.appendf(" [%03d] ", ev.cpu());
        line.append(ev.name());
        line.push_back('\t');
        t.print_info(ev, line);  // with the plugins' print overrides, as tep_print_event
        line.push_back('\n');
        std::fwrite(line.data(), 1, line.size(), stdout);
        return 0;
    };
    (void)trace->follow_event("kvm", "kvm_exit", show_event);
    (void)trace->follow_event("kvm", "kvm_entry", show_event);
    trace->iterate([](ringscope::Trace&, const ringscope::Event&, int) { return 0; });
    return 0;
}
