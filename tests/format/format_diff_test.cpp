// Differential test: the printer against Debian's libtraceevent (tests/format/oracle) on the same
// bytes: random records for the committed format files and, when tracefs is readable, for every
// format of the running kernel; hand-built bprint records. Skips when the oracle is not built.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "format_test_support.hpp"

namespace fs = std::filesystem;
using ringscope::format::FormatCatalog;

namespace {

#ifdef RINGSCOPE_TEP_ORACLE
constexpr uint64_t kSymBase = 0xffffffff81000000ull;

std::vector<rtest::Sym> test_symbols() {
    std::vector<rtest::Sym> s;
    for (int i = 0; i < 64; ++i)
        s.push_back({kSymBase + static_cast<uint64_t>(i) * 0x100, "sym_" + std::to_string(i)});
    return s;
}

std::string kallsyms_text() {
    std::string t;
    char line[128];
    for (const auto& s : test_symbols()) {
        std::snprintf(line, sizeof line, "%016llx t %s\n", static_cast<unsigned long long>(s.addr),
                      s.name.c_str());
        t += line;
    }
    return t;
}

const char* kPrintk =
    "0xffffffff82000000 : \"plain text\\n\"\n"
    "0xffffffff82000010 : \"num=%d unum=%u hex=%lx str=%s\\n\"\n"
    "0xffffffff82000020 : \"%pS called with %llu and %08x\"\n"
    "0xffffffff82000030 : \"width %*d and %-10s| %c\"\n"
    "0xffffffff82000040 : \"pct %% %5.2d %#x %+d %hhx %hd\"\n";

struct Fixture {
    fs::path dir;
    fs::path ksyms, printk, records;
    Fixture() {
        dir = fs::temp_directory_path() / ("ringscope-format-" + std::to_string(getpid()));
        fs::create_directories(dir);
        ksyms = dir / "kallsyms";
        printk = dir / "printk";
        records = dir / "records";
        std::ofstream(ksyms) << kallsyms_text();
        std::ofstream(printk) << kPrintk;
    }
    ~Fixture() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
};

// A record for type t: random field values biased towards what print fmts test for, with valid
// (and sometimes empty) __data_loc/__rel_loc areas.
std::vector<uint8_t> make_record(const ringscope::EventType& t, std::mt19937_64& rng) {
    uint32_t end = 0;
    for (const auto* list : {&t.common_fields, &t.fields})
        for (const auto& f : *list) end = std::max(end, f.offset + f.size);
    std::vector<uint8_t> r(end);
    for (auto& b : r) b = static_cast<uint8_t>(rng());
    auto put = [&](uint32_t off, uint64_t v, uint32_t n) {
        if (off + n <= r.size()) std::memcpy(r.data() + off, &v, n);
    };
    for (const auto* list : {&t.common_fields, &t.fields}) {
        for (const auto& f : *list) {
            if (f.name == "common_type") {
                put(f.offset, t.id, f.size);
                continue;
            }
            if (f.flags & (ringscope::kFieldDynamic | ringscope::kFieldRelLoc)) {
                uint32_t len = static_cast<uint32_t>(rng() % 24);
                uint32_t at = static_cast<uint32_t>(r.size());
                for (uint32_t i = 0; i + 1 < len; ++i) r.push_back(static_cast<uint8_t>('a' + rng() % 26));
                if (len) r.push_back(0);
                uint32_t off = (f.flags & ringscope::kFieldRelLoc) ? at - (f.offset + 4) : at;
                put(f.offset, (uint64_t{len} << 16) | off, 4);
                continue;
            }
            if (f.flags & ringscope::kFieldArray) {
                if (f.flags & ringscope::kFieldString) {
                    uint32_t n = static_cast<uint32_t>(rng() % (f.size + 1));
                    for (uint32_t i = 0; i < f.size; ++i)
                        r[f.offset + i] = i < n ? static_cast<uint8_t>('A' + rng() % 26) : 0;
                    if (rng() % 8 == 0 && f.size) r[f.offset] = 0x80;  // not printable
                }
                continue;
            }
            switch (rng() % 6) {
                case 0:
                    put(f.offset, rng() % 4, f.size <= 8 ? f.size : 0);
                    break;
                case 1:
                    put(f.offset, rng() % 64, f.size <= 8 ? f.size : 0);
                    break;
                case 2:
                    if (f.size == 8) put(f.offset, kSymBase + rng() % (64 * 0x100 + 0x40), 8);
                    break;
                case 3:
                    put(f.offset, 1ull << (rng() % 63), f.size <= 8 ? f.size : 0);
                    break;
                default:
                    break;  // random
            }
        }
    }
    return r;
}

void append_record(std::string& file, const std::vector<uint8_t>& r) {
    uint32_t sz = static_cast<uint32_t>(r.size());
    file.append(reinterpret_cast<const char*>(&sz), 4);
    file.append(reinterpret_cast<const char*>(r.data()), r.size());
}

std::string hex(const std::vector<uint8_t>& r) {
    std::string s;
    char b[4];
    for (uint8_t x : r) {
        std::snprintf(b, sizeof b, "%02x", x);
        s += b;
    }
    return s;
}

// Loads the formats, prints `per_type` random records of each in every mode, compares with the
// oracle; returns the number of differing records (details go to the test log).
int compare_formats(const std::vector<rtest::FormatFile>& files, int per_type, uint64_t seed, int* compared,
                    std::vector<std::string>* crashed = nullptr) {
    Fixture fx;
    FormatCatalog cat;
    EXPECT_TRUE(cat.add_printk_formats(kPrintk));
    rtest::TestContext ctx(&cat);
    ctx.service().add("kernel", std::make_shared<rtest::TestResolver>(test_symbols()));
    std::string fargs;
    std::vector<const ringscope::EventType*> types;
    for (const auto& f : files) {
        auto t = cat.add_format(rtest::read_file(f.path), f.system);
        if (!t) continue;  // header errors are checked by the parser tests
        types.push_back(*t);
        fargs += f.system + ":" + f.path.string() + "\n";
    }
    std::mt19937_64 rng(seed);
    std::vector<std::vector<uint8_t>> recs;
    std::string file;
    for (const auto* t : types)
        for (int i = 0; i < per_type; ++i) {
            recs.push_back(make_record(*t, rng));
            append_record(file, recs.back());
        }
    std::ofstream(fx.records, std::ios::binary) << file;
    std::ofstream(fx.dir / "list") << fargs;
    int bad = 0;
    for (const char* mode : {"info", "raw", "fields"}) {
        // INFO first: libtraceevent's sticky state (cleared string flags) then matches ours
        std::string cmd = std::string(RINGSCOPE_TEP_ORACLE) + " -m " + mode + " -k " + fx.ksyms.string() +
                          " -p " + fx.printk.string() + " -F " + (fx.dir / "list").string() + " -r " +
                          fx.records.string() + " 2>/dev/null";
        auto want = rtest::run_oracle(cmd);
        if (want.size() < recs.size() && crashed) {
            // libtraceevent itself died on this record (it reads unchecked): leave its type out
            const auto* t = types[want.size() / static_cast<size_t>(per_type)];
            crashed->push_back(t->system + "/" + t->name);
            return -1;
        }
        EXPECT_EQ(want.size(), recs.size()) << mode;
        if (want.size() != recs.size()) return 1;
        // a fresh catalog per mode, as the oracle is a fresh process: libtraceevent's sticky
        // state (string flags it clears, bprints that failed) starts over for each
        FormatCatalog mcat;
        EXPECT_TRUE(mcat.add_printk_formats(kPrintk));
        std::vector<const ringscope::EventType*> mtypes;
        for (const auto& f : files) {
            auto t = mcat.add_format(rtest::read_file(f.path), f.system);
            if (t) mtypes.push_back(*t);
        }
        EXPECT_EQ(mtypes.size(), types.size());
        ringscope::TextBuffer out;
        for (size_t i = 0; i < recs.size(); ++i) {
            const auto* t = mtypes[i / static_cast<size_t>(per_type)];
            ringscope::Event ev(t, &ctx, recs[i], 0, 0);
            auto& cat = mcat;
            out.clear();
            if (!std::strcmp(mode, "info"))
                cat.print_info(ev, out);
            else if (!std::strcmp(mode, "raw"))
                cat.print_raw(ev, out);
            else
                cat.print_fields(ev, out);
            ++*compared;
            if (out.view() != want[i]) {
                if (++bad <= 15)
                    ADD_FAILURE() << mode << " " << t->system << ":" << t->name << "\n  want: " << want[i]
                                  << "\n  got:  " << out.view() << "\n  record: " << hex(recs[i]);
            }
        }
    }
    return bad;
}
#endif

}  // namespace

TEST(FormatDiff, CommittedFormatsRandomRecords) {
#ifndef RINGSCOPE_TEP_ORACLE
    GTEST_SKIP() << "libtraceevent oracle not built";
#else
    auto files = rtest::find_formats(fs::path(RINGSCOPE_TEST_DATA_DIR) / "formats");
    ASSERT_GT(files.size(), 50u);
    int compared = 0;
    EXPECT_EQ(compare_formats(files, 60, 1, &compared), 0);
    EXPECT_GT(compared, 10000);
#endif
}

TEST(FormatDiff, LiveFormatsRandomRecords) {
#ifndef RINGSCOPE_TEP_ORACLE
    GTEST_SKIP() << "libtraceevent oracle not built";
#else
    auto files = rtest::find_formats("/sys/kernel/tracing/events");
    if (files.empty()) GTEST_SKIP() << "tracefs not readable";
    std::vector<std::string> crashed;
    int compared = 0, bad = -1;
    for (int round = 0; round < 20 && bad < 0; ++round) {
        compared = 0;
        std::vector<rtest::FormatFile> keep;
        for (const auto& f : files) {
            std::string id = f.system + "/" + f.path.parent_path().filename().string();
            if (std::find(crashed.begin(), crashed.end(), id) == crashed.end()) keep.push_back(f);
        }
        bad = compare_formats(keep, 8, 2, &compared, &crashed);
    }
    EXPECT_EQ(bad, 0);
    EXPECT_GT(compared, 40000);
    for (const auto& c : crashed)
        std::printf("libtraceevent crashed on random records of %s: left out\n", c.c_str());
#endif
}
