// `ringscope kvm exits` through the plugin's command function, with a CommandEnv of our own.
#include "kvm_command.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>

#include "cli_process.hpp"
#include "framework/symbols/kallsyms_resolver.hpp"
#include "framework/symbols/resolver_registry.hpp"
#include "test_format.hpp"

using namespace kvm_test;

namespace {

class Env final : public ringscope::CommandEnv {
  public:
    Env() {
        out_ = open_memstream(&out_buf_, &out_len_);
        err_ = open_memstream(&err_buf_, &err_len_);
    }
    ~Env() override {
        std::fclose(out_);
        std::fclose(err_);
        std::free(out_buf_);
        std::free(err_buf_);
    }
    ringscope::ResolverService& resolvers() override { return resolvers_; }
    std::FILE* out() override { return out_; }
    std::FILE* err() override { return err_; }
    std::string out_text() {
        std::fflush(out_);
        return std::string(out_buf_, out_len_);
    }
    std::string err_text() {
        std::fflush(err_);
        return std::string(err_buf_, err_len_);
    }
    ringscope::symbols::ResolverRegistry resolvers_;

  private:
    std::FILE *out_, *err_;
    char *out_buf_ = nullptr, *err_buf_ = nullptr;
    size_t out_len_ = 0, err_len_ = 0;
};

}  // namespace

TEST(KvmCommand, ExitsCountsMatchTheReport) {
    // Exit reasons as trace-cmd report names them, counted.
    std::map<std::string, uint64_t> want;
    for (const auto& l : kvm_test::split_lines(read_file(data_path("kvm-extra.report")))) {
        size_t at = l.find(" kvm_exit: ");
        if (at == std::string::npos) continue;
        std::istringstream in(l.substr(l.find("reason ", at) + 7));
        std::string reason;
        in >> reason;
        ++want[reason];
    }
    Env env;
    ASSERT_EQ(ringscope::kvm::run_kvm_command({"exits", "--format", "csv", data_path("kvm-extra.dat")}, env),
              0)
        << env.err_text();
    auto lines = kvm_test::split_lines(env.out_text());
    ASSERT_GE(lines.size(), 2u);
    EXPECT_EQ(lines[0], "# kvm.exits.reasons");
    EXPECT_EQ(lines[1], "reason,isa,exit_code,count,share_pct,min_ns,mean_ns,p50_ns,p99_ns,max_ns");
    std::map<std::string, uint64_t> got;
    double share = 0;
    for (size_t i = 2; i < lines.size() && !lines[i].empty(); ++i) {
        std::vector<std::string> cells;
        std::istringstream in(lines[i]);
        std::string c;
        while (std::getline(in, c, ',')) cells.push_back(c);
        ASSERT_GE(cells.size(), 10u) << lines[i];
        got[cells[0]] = std::stoull(cells[3]);
        share += std::stod(cells[4]);
        EXPECT_EQ(cells[1], "SVM");  // the isa by name (KVM_ISA_SVM = 2)
        EXPECT_LE(std::stoull(cells[5]), std::stoull(cells[7])) << lines[i];  // min <= p50
        EXPECT_LE(std::stoull(cells[7]), std::stoull(cells[9])) << lines[i];  // p50 <= max
    }
    EXPECT_EQ(got, want);
    EXPECT_NEAR(share, 100.0, 1e-3);  // shares are printed with 6 significant digits
}

TEST(KvmCommand, GuestFunctionsFromTheService) {
    std::string path = std::string(RINGSCOPE_BINARY_DIR) + "/tests/kvm-command-guest-kallsyms";
    if (std::system(("xz -dc '" + data_path("guest-kallsyms.xz") + "' > '" + path + "'").c_str()) != 0)
        GTEST_SKIP() << "xz not available";
    auto r = ringscope::symbols::KallsymsResolver::load(path);
    ASSERT_TRUE(r) << r.error().to_string();
    Env env;
    env.resolvers_.add("guest", *r);
    ASSERT_EQ(ringscope::kvm::run_kvm_command(
                  {"exits", "--format=json", "--top", "1", data_path("kvm-extra.dat")}, env),
              0);
    std::string out = env.out_text();
    EXPECT_EQ(out.rfind("{\n  \"kvm.exits.reasons\": [", 0), 0u) << out.substr(0, 200);
    // The fixture's serial-port exits come from io_serial_in/out (kvm.expected-extra); with
    // --top 1 each reason has one function row.
    size_t funcs = out.find("\"kvm.exits.functions\"");
    ASSERT_NE(funcs, std::string::npos) << out;
    EXPECT_NE(out.find("\"function\": \"io_serial_out\"", funcs), std::string::npos) << out;
    EXPECT_EQ(out.find("\"rank\": 2", funcs), std::string::npos) << out;
}

TEST(KvmCommand, UsageAndErrors) {
    using ringscope::kvm::run_kvm_command;
    Env env;
    EXPECT_EQ(run_kvm_command({}, env), 2);
    EXPECT_EQ(run_kvm_command({"nothing"}, env), 2);
    EXPECT_EQ(run_kvm_command({"exits"}, env), 2);
    EXPECT_EQ(run_kvm_command({"exits", "--format", "xml", "x.dat"}, env), 2);
    EXPECT_EQ(run_kvm_command({"exits", "--top", "0", "x.dat"}, env), 2);
    EXPECT_EQ(run_kvm_command({"exits", "--bogus", "x.dat"}, env), 2);
    EXPECT_EQ(run_kvm_command({"exits", "/nonexistent.dat"}, env), 1);
    EXPECT_NE(env.err_text().find("/nonexistent.dat"), std::string::npos) << env.err_text();
    EXPECT_EQ(run_kvm_command({"--help"}, env), 0);
    EXPECT_NE(env.out_text().find("usage: ringscope kvm exits"), std::string::npos);
}
