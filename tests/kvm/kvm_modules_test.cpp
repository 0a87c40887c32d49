// The kvm-modules fixture (tests/data/kvm-modules, recorded by its record.sh): a guest with 2 vCPUs
// that loads parport_pc inside the traced window, so exits happen at RIPs inside a guest module.
// ringscope against the reference outputs recorded beside it: trace-cmd report with and without
// plugins, the tep_plugin_kvm_get_func(3) example, and `report --guest-symbols` naming the module's
// functions as that example does.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_process.hpp"

namespace {

using kvm_test::Proc;
using kvm_test::run;
using kvm_test::split_lines;

const std::string kDir = std::string(RINGSCOPE_TEST_DATA_DIR) + "/kvm-modules/";
const std::string kBin = RINGSCOPE_BINARY_DIR;

// An xz-compressed oracle's text; "" when xz is missing.
std::string unxz(const std::string& name) {
    return run("xz -dc '" + kDir + name + "' 2>/dev/null").out;
}

const std::string& guest_kallsyms() {
    static const std::string path = [] {
        // ctest runs each test in its own process, several at once: each writes its own copy and
        // renames it into place, so no test reads a file another is still writing.
        const std::string p = kBin + "/tests/kvm-modules-guest-kallsyms";
        const std::string tmp = p + "." + std::to_string(::getpid());
        if (run("xz -dc '" + kDir + "guest-kallsyms.xz' > '" + tmp + "' && mv -f '" + tmp + "' '" + p +
                "' && echo ok")
                .out != "ok\n")
            return std::string();
        return p;
    }();
    return path;
}

class KvmModules : public ::testing::Test {
  protected:
    void SetUp() override {
        if (guest_kallsyms().empty()) GTEST_SKIP() << "xz is not installed: the oracles are xz files";
    }
};

TEST_F(KvmModules, ReportMatchesTraceCmd) {
    for (const char* flags : {"", "-N "}) {
        SCOPED_TRACE(flags);
        const std::string want = unxz(*flags ? "kvm-modules.report-noplugins.xz" : "kvm-modules.report.xz");
        ASSERT_GT(want.size(), 100000u);
        const Proc got = run("'" + kBin + "/ringscope' report " + flags + "'" + kDir + "kvm-modules.dat'");
        ASSERT_EQ(got.status, 0);
        EXPECT_TRUE(got.out == want) << "ringscope report " << flags << "differs from trace-cmd's";
    }
}

TEST_F(KvmModules, GuestFuncsExampleMatchesTheCExample) {
    const std::string want = unxz("kvm-modules.guest-funcs.xz");
    const Proc got = run("'" + kBin + "/sdk/examples/kvm_guest_funcs' '" + kDir + "kvm-modules.dat' '" +
                         guest_kallsyms() + "'");
    ASSERT_EQ(got.status, 0);
    EXPECT_TRUE(got.out == want);
    // The fixture is what it claims to be: both vCPUs exit, and exits land in the module.
    EXPECT_NE(want.find("CPU 1/KVM"), std::string::npos);
    EXPECT_NE(want.find(" exit parport_pc_probe_port+0x"), std::string::npos);
}

// `report --guest-symbols`: each kvm_exit/kvm_entry line gets the function the example names.
TEST_F(KvmModules, ReportWithGuestSymbolsNamesModuleFunctions) {
    const auto example = split_lines(unxz("kvm-modules.guest-funcs.xz"));
    const auto report = split_lines(unxz("kvm-modules.report.xz"));
    const Proc got = run("'" + kBin + "/ringscope' report --guest-symbols '" + guest_kallsyms() + "' '" +
                         kDir + "kvm-modules.dat'");
    ASSERT_EQ(got.status, 0);
    const auto out = split_lines(got.out);
    ASSERT_EQ(out.size(), report.size());
    size_t k = 0, in_module = 0;
    for (size_t i = 0; i < report.size(); ++i) {
        std::string want = report[i];
        const bool exit_line = want.find(" kvm_exit: ") != std::string::npos;
        if (exit_line || want.find(" kvm_entry: ") != std::string::npos) {
            // The example's line: "... rip 0xRIP exit FUNC+0xOFF ..." / "... enter FUNC+0xOFF".
            while (k < example.size() &&
                   example[k].find(exit_line ? " kvm_exit\t" : " kvm_entry\t") == std::string::npos)
                ++k;
            ASSERT_LT(k, example.size()) << "line " << i + 1;
            const std::string& ex = example[k++];
            const size_t tag = ex.find(exit_line ? " exit " : " enter ");
            if (tag != std::string::npos) {
                const size_t b = ex.find(' ', tag + 1) + 1;
                const std::string func = ex.substr(b, ex.find(' ', b) - b);
                const size_t rip = want.find(" rip 0x");
                want.insert(
                    want.find(' ', rip + 7) == std::string::npos ? want.size() : want.find(' ', rip + 7),
                    " " + func);
                in_module += func.rfind("parport_pc_", 0) == 0;
            }
        }
        EXPECT_EQ(out[i], want) << "line " << i + 1;
    }
    EXPECT_GT(in_module, 100u);
}

// `kvm exits --guest-symbols`: per reason, the exits per guest function equal what the example's
// lines say (the function of each exit's rip; "[unresolved]" where it names none).
TEST_F(KvmModules, ExitsByGuestFunctionMatchTheExample) {
    std::map<std::pair<std::string, std::string>, int64_t> want;
    for (const auto& l : split_lines(unxz("kvm-modules.guest-funcs.xz"))) {
        const size_t r = l.find(" kvm_exit\treason ");
        if (r == std::string::npos) continue;
        const size_t rb = r + 17;
        const std::string reason = l.substr(rb, l.find(' ', rb) - rb);
        std::string func = "[unresolved]";
        if (const size_t e = l.find(" exit "); e != std::string::npos) {
            func = l.substr(e + 6, l.find(' ', e + 6) - e - 6);
            func = func.substr(0, func.find("+0x"));
        }
        ++want[{reason, func}];
    }
    ASSERT_GT(want.size(), 10u);
    const Proc got = run("'" + kBin + "/ringscope' kvm exits --format json --top 100000 --guest-symbols '" +
                         guest_kallsyms() + "' '" + kDir + "kvm-modules.dat'");
    ASSERT_EQ(got.status, 0);
    const auto j = nlohmann::json::parse(got.out);
    std::map<std::pair<std::string, std::string>, int64_t> have;
    for (const auto& row : j.at("kvm.exits.functions"))
        have[{row.at("reason").get<std::string>(), row.at("function").get<std::string>()}] = row.at("count");
    EXPECT_EQ(have, want);
    EXPECT_GT((want[{"EXIT_IOIO", "parport_pc_read_status"}]), 0);
    ASSERT_EQ(j.at("kvm.exits.vcpus").size(), 2u);
}

}  // namespace
