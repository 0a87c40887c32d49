// events/s of FormatCatalog::print_info vs libtraceevent's tep_print_event(TEP_PRINT_INFO) on the
// same records: random records of the committed real format files, printed round-robin.
// Usage: format_bench [records-per-type] [rounds]
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>

extern "C" {
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>
}

#include "format_test_support.hpp"

int main(int argc, char** argv) {
    int per_type = argc > 1 ? std::atoi(argv[1]) : 50;
    int rounds = argc > 2 ? std::atoi(argv[2]) : 20;
    auto files = rtest::find_formats(std::filesystem::path(RINGSCOPE_TEST_DATA_DIR) / "formats");
    ringscope::format::FormatCatalog cat;
    rtest::TestContext ctx(&cat);
    ctx.service().add("kernel", std::make_shared<rtest::TestResolver>(std::vector<rtest::Sym>{
                                    {0xffffffff81000000ull, "a"}, {0xffffffff82000000ull, "b"}}));
    tep_handle* tep = tep_alloc();
    tep_set_long_size(tep, 8);
    tep_parse_kallsyms(tep, "ffffffff81000000 t a\nffffffff82000000 t b\n");
    std::vector<const ringscope::EventType*> types;
    for (const auto& f : files) {
        std::string text = rtest::read_file(f.path);
        auto t = cat.add_format(text, f.system);
        if (!t || cat.print_fmt_failed(**t) || f.system == "ftrace") continue;  // measure real print fmts
        types.push_back(*t);
        tep_parse_event(tep, text.data(), text.size(), f.system.c_str());
    }
    std::mt19937_64 rng(7);
    std::vector<std::vector<uint8_t>> recs;
    std::vector<const ringscope::EventType*> rtype;
    for (int i = 0; i < per_type; ++i)
        for (const auto* t : types) {
            uint32_t end = 0;
            for (const auto* l : {&t->common_fields, &t->fields})
                for (const auto& f : *l) end = std::max(end, f.offset + f.size);
            std::vector<uint8_t> r(end + 64);
            for (auto& b : r) b = static_cast<uint8_t>(rng() % 8);
            std::memcpy(r.data(), &t->id, 2);
            for (const auto& f : t->fields)
                if (f.flags & (ringscope::kFieldDynamic | ringscope::kFieldRelLoc)) {
                    uint32_t off = (f.flags & ringscope::kFieldRelLoc) ? end - (f.offset + 4) : end;
                    uint32_t w = (8u << 16) | off;
                    std::memcpy(r.data() + f.offset, &w, 4);
                    std::memcpy(r.data() + end, "abcdefg", 8);
                }
            recs.push_back(std::move(r));
            rtype.push_back(t);
        }
    size_t n = recs.size() * static_cast<size_t>(rounds);
    ringscope::TextBuffer out;
    size_t bytes = 0;
    auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < rounds; ++k)
        for (size_t i = 0; i < recs.size(); ++i) {
            out.clear();
            ringscope::Event ev(rtype[i], &ctx, recs[i], 0, 0);
            cat.print_info(ev, out);
            bytes += out.size();
        }
    auto t1 = std::chrono::steady_clock::now();
    trace_seq s;
    trace_seq_init(&s);
    size_t tbytes = 0;
    for (int k = 0; k < rounds; ++k)
        for (size_t i = 0; i < recs.size(); ++i) {
            trace_seq_reset(&s);
            tep_record rec{};
            rec.data = recs[i].data();
            rec.size = static_cast<int>(recs[i].size());
            tep_print_event(tep, &s, &rec, "%s", TEP_PRINT_INFO);
            tbytes += s.len;
        }
    auto t2 = std::chrono::steady_clock::now();
    double a = std::chrono::duration<double>(t1 - t0).count(),
           b = std::chrono::duration<double>(t2 - t1).count();
    std::printf("%zu events (%zu types x %d x %d rounds)\n", n, types.size(), per_type, rounds);
    std::printf("ringscope  print_info:      %8.2f M events/s  (%zu bytes)\n", n / a / 1e6, bytes);
    std::printf("libtraceevent tep_print_event: %8.2f M events/s  (%zu bytes)\n", n / b / 1e6, tbytes);
    std::printf("ratio ringscope/libtraceevent: %.2fx\n", b / a);
    trace_seq_destroy(&s);
    tep_free(tep);
}
