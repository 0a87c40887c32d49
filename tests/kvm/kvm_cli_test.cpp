// End to end on the KVM fixture: the kvm_guest_funcs example port, `ringscope report
// --guest-symbols` and `ringscope kvm exits`, run as programs from the build tree.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>

#include "cli_process.hpp"
#include "framework/symbols/kallsyms_resolver.hpp"
#include "test_format.hpp"

using namespace kvm_test;

namespace {

std::string bin(const std::string& rel) {
    return std::string(RINGSCOPE_BINARY_DIR) + "/" + rel;
}

const std::string& guest_kallsyms() {
    static const std::string path = [] {
        std::string p = bin("tests/kvm-cli-guest-kallsyms");
        if (std::system(("xz -dc '" + data_path("guest-kallsyms.xz") + "' > '" + p + "'").c_str()) != 0)
            return std::string();
        return p;
    }();
    return path;
}

}  // namespace

// The contract: byte for byte what the C example of tep_plugin_kvm_get_func(3) printed.
TEST(KvmCli, GuestFuncsExampleMatchesTheCExample) {
    if (guest_kallsyms().empty()) GTEST_SKIP() << "xz not available";
    Proc r = run("'" + bin("sdk/examples/kvm_guest_funcs") + "' '" + data_path("kvm-extra.dat") + "' '" +
                 guest_kallsyms() + "'");
    EXPECT_EQ(r.status, 0);
    std::string want = read_file(data_path("kvm.expected-extra"));
    EXPECT_EQ(r.out.size(), want.size());
    auto got = split_lines(r.out), exp = split_lines(want);
    ASSERT_EQ(got.size(), exp.size());
    for (size_t i = 0; i < exp.size(); ++i) EXPECT_EQ(got[i], exp[i]) << "line " << i + 1;
}

TEST(KvmCli, GuestFuncsExampleUsage) {
    Proc r = run("'" + bin("sdk/examples/kvm_guest_funcs") + "' 2>&1");
    EXPECT_EQ(r.status, 255);
    EXPECT_EQ(r.out, "usage: trace.dat guest_kallsyms_file\n");
}

// `report --guest-symbols FILE`: trace-cmd's lines with the example's function after each rip.
TEST(KvmCli, ReportWithGuestSymbols) {
    if (guest_kallsyms().empty()) GTEST_SKIP() << "xz not available";
    Proc r = run("'" + bin("ringscope") + "' report --guest-symbols '" + guest_kallsyms() + "' '" +
                 data_path("kvm-extra.dat") + "'");
    ASSERT_EQ(r.status, 0);
    // FUNC+0xOFF per kvm_exit/kvm_entry line, in order, from the C example's output; and by rip,
    // for kvm_emulate_insn (the plugin names its rip too; it is the rip of the exit before it).
    std::vector<std::string> funcs;
    std::map<std::string, std::string> by_rip;
    for (const auto& l : split_lines(read_file(data_path("kvm.expected-extra")))) {
        size_t at = l.find(" rip 0x");
        size_t rip_end = l.find(' ', at + 7);
        std::string rest = l.substr(rip_end + 1);
        std::string f;
        if (rest.rfind("exit ", 0) == 0 || rest.rfind("enter ", 0) == 0) {
            size_t b = rest.find(' ') + 1, e = rest.find(' ', b);
            f = rest.substr(b, e == std::string::npos ? std::string::npos : e - b);
            by_rip[l.substr(at + 7, rip_end - at - 7)] = f;
        }
        funcs.push_back(f);
    }
    auto want = split_lines(read_file(data_path("kvm-extra.report")));
    auto got = split_lines(r.out);
    ASSERT_EQ(got.size(), want.size());
    auto guest = ringscope::symbols::KallsymsResolver::load(guest_kallsyms());
    ASSERT_TRUE(guest) << guest.error().to_string();
    size_t k = 0, emulated = 0, from_example = 0;
    for (size_t i = 0; i < want.size(); ++i) {
        std::string w = want[i];
        if (w.find(" kvm_exit: ") != std::string::npos || w.find(" kvm_entry: ") != std::string::npos) {
            ASSERT_LT(k, funcs.size());
            size_t at = w.find(" rip 0x");
            size_t end = w.find(' ', at + 7);
            if (!funcs[k].empty()) w.insert(end == std::string::npos ? w.size() : end, " " + funcs[k]);
            ++k;
        } else if (size_t at = w.find(" kvm_emulate_insn:"); at != std::string::npos) {
            // "CSBASE:RIP: bytes" -> "CSBASE:RIP FUNC+0xOFF: bytes"
            size_t colon = w.find(':', w.find_first_not_of(' ', at + 18));
            size_t end = w.find(':', colon + 1);
            std::string rip = w.substr(colon + 1, end - colon - 1);
            auto f = by_rip.find(rip);
            std::string name;
            if (f != by_rip.end()) {
                name = f->second;
                ++from_example;
            } else if (auto s = (*guest)->lookup(std::stoull(rip, nullptr, 16))) {
                // A rip no exit/entry had: the kallsyms resolver (checked against the reference
                // on all 680 exit/entry rips in KallsymsResolver tests) names it.
                name = ringscope::ResolverService::format(*s, std::stoull(rip, nullptr, 16));
            }
            if (!name.empty()) w.insert(end, " " + name);
            ++emulated;
        }
        EXPECT_EQ(got[i], w) << "line " << i + 1;
    }
    EXPECT_EQ(k, 680u);
    EXPECT_EQ(emulated, 138u);
    EXPECT_EQ(from_example, 39u);  // the other 99 rips named by the resolver
}

TEST(KvmCli, ExitsUsageErrors) {
    EXPECT_EQ(run("'" + bin("ringscope") + "' kvm 2>/dev/null").status, 2);
    EXPECT_EQ(run("'" + bin("ringscope") + "' kvm nothing 2>/dev/null").status, 2);
    EXPECT_EQ(run("'" + bin("ringscope") + "' kvm exits 2>/dev/null").status, 2);
    EXPECT_EQ(run("'" + bin("ringscope") + "' kvm exits --format xml x.dat 2>/dev/null").status, 2);
    EXPECT_EQ(run("'" + bin("ringscope") + "' kvm exits --top 0 x.dat 2>/dev/null").status, 2);
    Proc missing = run("'" + bin("ringscope") + "' kvm exits /nonexistent.dat 2>&1");
    EXPECT_EQ(missing.status, 1);
    EXPECT_NE(missing.out.find("/nonexistent.dat"), std::string::npos) << missing.out;
}
