#include "framework/symbols/kallsyms_resolver.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <random>
#include <sstream>

#include "test_util.hpp"

using ringscope::Errc;
using ringscope::ResolverService;
using ringscope::symbols::KallsymsResolver;

namespace {

std::shared_ptr<const KallsymsResolver> parse_ok(std::string_view text) {
    auto r = KallsymsResolver::parse(text, "test");
    EXPECT_TRUE(r) << (r ? "" : r.error().to_string());
    return r ? *r : nullptr;
}

std::string name_at(const KallsymsResolver& r, uint64_t addr) {
    auto s = r.lookup(addr);
    return s ? ResolverService::format(*s, addr) : std::string("<none>");
}

constexpr const char* kSmall =
    "0000000000000000 A fixed_percpu_data\n"
    "0000000000001000 a some_local_abs\n"
    "ffffffff81000000 T _stext\n"
    "ffffffff81000000 T _text\n"
    "ffffffff81000100 t helper\n"
    "ffffffff81000200 T memcpy\n"
    "ffffffff81000200 T __memcpy\n"
    "ffffffff81000300 W weak_fn\n"
    "ffffffff81000400 t $x\n"
    "\n"
    "ffffffffc0201040 t __virtqueue_break\t[virtio_ring]\n"
    "ffffffffc0201050 t __virtqueue_unbreak\t[virtio_ring]\n"
    "ffffffffc0300000 t last_sym\t[kvm_amd]\n";

}  // namespace

TEST(KallsymsResolver, ExactAndInexactHits) {
    auto r = parse_ok(kSmall);
    ASSERT_TRUE(r);
    EXPECT_EQ(name_at(*r, 0xffffffff81000100), "helper");
    EXPECT_EQ(name_at(*r, 0xffffffff81000101), "helper+0x1");
    EXPECT_EQ(name_at(*r, 0xffffffff810001ff), "helper+0xff");
    EXPECT_EQ(name_at(*r, 0xffffffff81000300), "weak_fn");
    auto s = r->lookup(0xffffffff81000123);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->start, 0xffffffff81000100u);
    EXPECT_EQ(s->size, 0u);
    EXPECT_TRUE(s->module.empty());
}

TEST(KallsymsResolver, BeforeFirstAndPastLast) {
    auto r = parse_ok(kSmall);
    ASSERT_TRUE(r);
    // A symbols are skipped, so the low addresses do not resolve at all.
    EXPECT_EQ(name_at(*r, 0), "<none>");
    EXPECT_EQ(name_at(*r, 0x1000), "<none>");
    EXPECT_EQ(name_at(*r, 0xffffffff80ffffff), "<none>");
    // The last symbol has no end: its start resolves, nothing after it (as libtraceevent).
    EXPECT_EQ(name_at(*r, 0xffffffffc0300000), "last_sym");
    EXPECT_EQ(name_at(*r, 0xffffffffc0300001), "<none>");
    EXPECT_EQ(name_at(*r, ~0ull), "<none>");
}

TEST(KallsymsResolver, SkipsAbsoluteAndDollarSymbols) {
    auto r = parse_ok(kSmall);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->size(), 9u);
    EXPECT_EQ(r->skipped(), 3u);  // A, a, $x
    // $x at ...400 is gone, so weak_fn covers it.
    EXPECT_EQ(name_at(*r, 0xffffffff81000400), "weak_fn+0x100");
}

TEST(KallsymsResolver, SeveralNamesAtOneAddress) {
    auto r = parse_ok(kSmall);
    ASSERT_TRUE(r);
    // Inside: the name that comes first in the file.
    EXPECT_EQ(name_at(*r, 0xffffffff81000201), "memcpy+0x1");
    EXPECT_EQ(name_at(*r, 0xffffffff81000001), "_stext+0x1");
    auto all = r->names_at(0xffffffff81000200);
    ASSERT_EQ(all.size(), 2u);
    EXPECT_EQ(all[0].name, "memcpy");
    EXPECT_EQ(all[1].name, "__memcpy");
    // At the start: libtraceevent's bsearch pick, stable from run to run.
    auto a = r->lookup(0xffffffff81000200), b = r->lookup(0xffffffff81000200);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a->name, b->name);
    EXPECT_TRUE(a->name == "memcpy" || a->name == "__memcpy");
    EXPECT_TRUE(r->names_at(0xffffffff81000201).empty());
}

TEST(KallsymsResolver, Modules) {
    auto r = parse_ok(kSmall);
    ASSERT_TRUE(r);
    auto s = r->lookup(0xffffffffc0201044);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->name, "__virtqueue_break");
    EXPECT_EQ(s->module, "virtio_ring");
    EXPECT_EQ(r->lookup(0xffffffffc0300000).value().module, "kvm_amd");
    // The module only counts after a TAB (the grammar libtraceevent uses).
    auto r2 = parse_ok("ffffffffc0000000 t f [notmod]\nffffffffc0000010 t g\t[m]\n");
    ASSERT_TRUE(r2);
    EXPECT_TRUE(r2->lookup(0xffffffffc0000000).value().module.empty());
    EXPECT_EQ(r2->lookup(0xffffffffc0000010).value().module, "m");
}

TEST(KallsymsResolver, SystemMapAndOddSpacing) {
    // System.map has the same shape; CRLF endings and 0x prefixes are tolerated.
    auto r = parse_ok("  ffffffff81000000 T _text\r\n0xffffffff81000010   t   spaced\r\n");
    ASSERT_TRUE(r);
    EXPECT_EQ(name_at(*r, 0xffffffff81000005), "_text+0x5");
    EXPECT_EQ(name_at(*r, 0xffffffff81000010), "spaced");
}

TEST(KallsymsResolver, MalformedLinesNameTheLine) {
    struct Case {
        const char* text;
        int line;
        const char* what;
    } cases[] = {
        {"ffffffff81000000 T ok\nnot-hex T bad\n", 2, "hex address"},
        {"ffffffff81000000 T ok\n\nffffffff81000010\n", 3, "symbol type"},
        {"ffffffff81000000 T\n", 1, "symbol name"},
        {"ffffffff81000000 T a\nffffffff81000010 T b\n12345678901234567 T long\n", 3, "16 hex"},
    };
    for (const auto& c : cases) {
        auto r = KallsymsResolver::parse(c.text, "sym.txt");
        ASSERT_FALSE(r) << c.text;
        EXPECT_EQ(r.error().code(), Errc::parse);
        EXPECT_EQ(r.error().line(), c.line) << c.text;
        EXPECT_EQ(r.error().file(), "sym.txt");
        EXPECT_NE(r.error().message().find(c.what), std::string::npos) << r.error().message();
        EXPECT_EQ(r.error().to_string().rfind("sym.txt:" + std::to_string(c.line) + ":", 0), 0u)
            << r.error().to_string();
    }
}

TEST(KallsymsResolver, EmptyAndMissing) {
    auto r = parse_ok("");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->size(), 0u);
    EXPECT_FALSE(r->lookup(0x1234));
    auto m = KallsymsResolver::load("/nonexistent/kallsyms");
    ASSERT_FALSE(m);
    EXPECT_EQ(m.error().code(), Errc::io);
    EXPECT_EQ(m.error().file(), "/nonexistent/kallsyms");
}

TEST(KallsymsResolver, HundredThousandSymbols) {
    // Random distinct starts in shuffled order; every look-up is checked against a linear model.
    std::mt19937_64 rng(12);
    std::vector<uint64_t> starts;
    uint64_t a = 0xffffffff81000000;
    for (int i = 0; i < 100000; ++i) {
        a += 1 + rng() % 512;
        starts.push_back(a);
    }
    std::vector<size_t> order(starts.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), rng);
    std::string text;
    char line[96];
    for (size_t i : order) {
        std::snprintf(line, sizeof line, "%016" PRIx64 " t f%zu\n", starts[i], i);
        text += line;
    }
    auto r = parse_ok(text);
    ASSERT_TRUE(r);
    ASSERT_EQ(r->size(), 100000u);
    for (int k = 0; k < 20000; ++k) {
        uint64_t q = starts.front() - 100 + rng() % (starts.back() - starts.front() + 200);
        auto it = std::upper_bound(starts.begin(), starts.end(), q);
        auto s = r->lookup(q);
        if (it == starts.begin() || (it == starts.end() && q != starts.back())) {
            EXPECT_FALSE(s) << std::hex << q;
            continue;
        }
        size_t idx = static_cast<size_t>(it - starts.begin()) - 1;
        ASSERT_TRUE(s) << std::hex << q;
        EXPECT_EQ(s->start, starts[idx]);
        EXPECT_EQ(s->name, "f" + std::to_string(idx));
    }
}

TEST(KallsymsResolver, OrderOfTheLinesChangesNoPick) {
    // Address order (the core image's) turns the runs of equal addresses round without a sort;
    // any other order is sorted. Both must pick the same names, aliases included.
    const std::vector<std::string> lines = {"ffffffff81000000 T _stext\n",
                                            "ffffffff81000000 T _text\n",
                                            "ffffffff81000100 t helper\n",
                                            "ffffffff81000200 T memcpy\n",
                                            "ffffffff81000200 T __memcpy\n",
                                            "ffffffff81000200 T memcpy_alias\n",
                                            "ffffffff81000300 W weak_fn\n",
                                            "ffffffffc0201040 t vq_break\t[virtio_ring]\n",
                                            "ffffffffc0201040 t vq_alias\t[virtio_ring]\n",
                                            "ffffffffc0300000 t last_sym\t[kvm_amd]\n"};
    std::string sorted;
    for (const auto& l : lines) sorted += l;
    // Unsorted: the module lines first, keeping the file order of each address's names.
    std::string unsorted;
    for (size_t i = 7; i < lines.size(); ++i) unsorted += lines[i];
    for (size_t i = 0; i < 7; ++i) unsorted += lines[i];
    auto a = parse_ok(sorted), b = parse_ok(unsorted);
    ASSERT_TRUE(a && b);
    for (uint64_t q :
         {0xffffffff81000000ull, 0xffffffff81000001ull, 0xffffffff81000200ull, 0xffffffff81000201ull,
          0xffffffffc0201040ull, 0xffffffffc0201041ull, 0xffffffffc0300000ull}) {
        EXPECT_EQ(name_at(*a, q), name_at(*b, q)) << std::hex << q;
        ASSERT_EQ(a->names_at(q).size(), b->names_at(q).size()) << std::hex << q;
        for (size_t k = 0; k < a->names_at(q).size(); ++k)
            EXPECT_EQ(a->names_at(q)[k].name, b->names_at(q)[k].name) << std::hex << q;
    }
    EXPECT_EQ(name_at(*a, 0xffffffff81000201), "memcpy+0x1");
    EXPECT_EQ(name_at(*a, 0xffffffffc0201041), "vq_break+0x1");
    EXPECT_EQ(a->lookup(0xffffffffc0201041).value().module, "virtio_ring");
}

TEST(KallsymsResolver, NamesAreViewsIntoTheText) {
    // With an owner the table keeps no copy: its names point into the text, kept alive by it.
    auto text = std::make_shared<std::string>("ffffffff81000000 T _text\nffffffffc0000010 t g\t[mod]\n");
    const std::string_view view(*text);
    auto r = KallsymsResolver::parse(view, "owned", text);
    ASSERT_TRUE(r) << r.error().to_string();
    text.reset();
    auto s = (*r)->lookup(0xffffffffc0000010);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->name, "g");
    EXPECT_EQ(s->module, "mod");
    EXPECT_EQ(s->name.data(), view.data() + view.find("g\t"));
    // Without one it copies: the caller's text may go at once.
    std::shared_ptr<const KallsymsResolver> copied;
    {
        std::string temporary = "ffffffff81000000 T only\n";
        auto c = KallsymsResolver::parse(temporary, "copied");
        ASSERT_TRUE(c);
        copied = *c;
        temporary.assign(temporary.size(), 'x');
    }
    EXPECT_EQ(name_at(*copied, 0xffffffff81000000), "only");
}

// The reference: every "exit FUNC+0xOFF" / "enter FUNC+0xOFF" the C example of
// tep_plugin_kvm_get_func(3) printed, against the same guest kallsyms.
TEST(KallsymsResolver, MatchesLibtraceeventOnGuestKallsyms) {
    std::string path = symbols_test::guest_kallsyms_path();
    if (path.empty()) GTEST_SKIP() << "xz not available";
    auto r = KallsymsResolver::load(path);
    ASSERT_TRUE(r) << r.error().to_string();
    EXPECT_EQ((*r)->size() + (*r)->skipped(), 96352u);
    std::istringstream in(
        symbols_test::read_file(std::string(RINGSCOPE_TEST_DATA_DIR) + "/kvm/kvm.expected-extra"));
    std::string line;
    int checked = 0;
    while (std::getline(in, line)) {
        auto rip_at = line.find(" rip 0x");
        ASSERT_NE(rip_at, std::string::npos) << line;
        uint64_t rip = std::stoull(line.substr(rip_at + 7), nullptr, 16);
        size_t after = line.find(' ', rip_at + 7);
        std::string rest = line.substr(after + 1);
        std::string expected;
        if (rest.rfind("exit ", 0) == 0 || rest.rfind("enter ", 0) == 0) {
            size_t b = rest.find(' ') + 1, e = rest.find(' ', b);
            expected = rest.substr(b, e == std::string::npos ? std::string::npos : e - b);
        }
        auto s = (*r)->lookup(rip);
        EXPECT_EQ(s ? ResolverService::format(*s, rip) : std::string(), expected) << line;
        ++checked;
    }
    EXPECT_EQ(checked, 680);
}

// Arbitrary bytes parse to a table or to an error with a line number; never past the input.
TEST(KallsymsResolver, GarbageNeverCrashes) {
    std::mt19937 rng(5);
    const char alphabet[] = "0123456789abcdefxX Tt\t[]\n\r$Aa\0\xff";
    for (int round = 0; round < 2000; ++round) {
        std::string text(rng() % 200, ' ');
        for (char& c : text) c = alphabet[rng() % (sizeof alphabet - 1)];
        auto r = KallsymsResolver::parse(text, "fuzz");
        if (r) {
            for (int k = 0; k < 20; ++k) (void)(*r)->lookup(rng());
        } else {
            EXPECT_EQ(r.error().code(), Errc::parse);
            EXPECT_GE(r.error().line(), 1);
        }
    }
}
