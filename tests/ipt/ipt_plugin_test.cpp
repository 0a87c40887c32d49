// Loads build/plugins/ipt.so the way the framework does (its exported descriptor), registers it
// into a recording registry and runs what it registered: the `ipt` command and the "ipt" decoder.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <ringscope/plugin.hpp>

#include "no_symbols.hpp"

namespace {

class Registry : public ringscope::PluginRegistry {
  public:
    void add_decoder(std::shared_ptr<ringscope::Decoder> d) override { decoders.push_back(std::move(d)); }
    void add_handler(ringscope::HandlerFactory) override {}
    void add_resolver(std::string, std::shared_ptr<const ringscope::SymbolResolver>) override {}
    void add_command(ringscope::Command c) override { commands.push_back(std::move(c)); }
    void add_report_option(ringscope::ReportOption) override {}
    void add_analysis(ringscope::AnalysisSpec) override {}

    std::vector<std::shared_ptr<ringscope::Decoder>> decoders;
    std::vector<ringscope::Command> commands;
};

class Env : public ringscope::CommandEnv {
  public:
    Env() : out_(open_memstream(&buf_, &len_)), err_(std::tmpfile()) {}
    ~Env() override {
        if (out_) std::fclose(out_);
        std::fclose(err_);
        std::free(buf_);
    }
    ringscope::ResolverService& resolvers() override { return resolvers_; }
    std::FILE* out() override { return out_; }
    std::FILE* err() override { return err_; }
    std::string text() {
        std::fflush(out_);
        return std::string(buf_, len_);
    }

  private:
    char* buf_ = nullptr;
    size_t len_ = 0;
    std::FILE* out_;
    std::FILE* err_;
    ringscope::ipt::testing::NoSymbols resolvers_;
};

TEST(IptPlugin, LoadsAndRegisters) {
    std::string path = std::string(RINGSCOPE_BINARY_DIR) + "/plugins/ipt.so";
    if (!std::filesystem::exists(path)) GTEST_SKIP() << "plugin not built: " << path;
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(handle, nullptr) << dlerror();
    // BOOST_DLL_ALIAS exports a pointer to the descriptor under the entry name.
    auto* entry =
        static_cast<const ringscope::PluginDescriptor**>(dlsym(handle, ringscope::kPluginEntrySymbol));
    ASSERT_NE(entry, nullptr);
    const ringscope::PluginDescriptor* desc = *entry;
    EXPECT_EQ(desc->abi, RINGSCOPE_SDK_ABI);
    EXPECT_STREQ(desc->name, "ipt");
    std::unique_ptr<ringscope::Plugin> plugin(desc->create());
    Registry registry;
    plugin->register_into(registry);
    ASSERT_EQ(registry.commands.size(), 1u);
    EXPECT_EQ(registry.commands[0].name, "ipt");
    ASSERT_EQ(registry.decoders.size(), 1u);
    EXPECT_EQ(registry.decoders[0]->format_name(), "ipt");

    // The command on a corpus file when the shared corpus is there, else its usage error.
    std::string pt = std::string(RINGSCOPE_SHARED_DIR) + "/conformance/ipt/libipt-suite/tip_pgd-stop.pt";
    Env env;
    if (std::filesystem::exists(pt)) {
        EXPECT_EQ(registry.commands[0].run({"sync", "--at", "0,1", pt}, env), 0);
        std::string out = env.text();
        EXPECT_NE(out.find("sync-set offset=0x0 -> "), std::string::npos) << out;
        EXPECT_NE(out.find("sync-set offset=0x1 -> error=pte_nosync"), std::string::npos) << out;
    }
    Env env2;
    EXPECT_EQ(registry.commands[0].run({"frobnicate"}, env2), 2);
    Env env3;
    EXPECT_EQ(registry.commands[0].run({"dump", "/nonexistent.pt"}, env3), 1);
    plugin.reset();
    registry.decoders.clear();
    registry.commands.clear();
    dlclose(handle);
}

}  // namespace
