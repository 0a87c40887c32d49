// Test helpers: a trace context with a small kallsyms-style resolver (libtraceevent's look-up
// rules: the symbol at or below the address, the last symbol only at its exact address), format
// files on disk, and the libtraceevent oracle runner.
#pragma once

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <ringscope/context.hpp>
#include <ringscope/event.hpp>
#include <ringscope/resolver.hpp>

#include "framework/format/format_catalog.hpp"
#include "tests/support/file_text.hpp"

namespace rtest {

using ringscope::test::read_file;

struct Sym {
    uint64_t addr;
    std::string name;
};

class TestResolver : public ringscope::SymbolResolver {
  public:
    explicit TestResolver(std::vector<Sym> syms) : syms_(std::move(syms)) {
        std::sort(syms_.begin(), syms_.end(), [](const Sym& a, const Sym& b) { return a.addr < b.addr; });
    }
    std::optional<ringscope::Symbol> lookup(uint64_t addr) const override {
        auto it = std::upper_bound(syms_.begin(), syms_.end(), addr,
                                   [](uint64_t a, const Sym& s) { return a < s.addr; });
        if (it == syms_.begin()) return std::nullopt;
        --it;
        if (it + 1 == syms_.end() && it->addr != addr) return std::nullopt;
        return ringscope::Symbol{it->name, it->addr, 0, {}};
    }
    std::string describe() const override { return "test"; }

  private:
    std::vector<Sym> syms_;
};

class TestResolvers : public ringscope::ResolverService {
  public:
    void add(std::string d, std::shared_ptr<const ringscope::SymbolResolver> r) override {
        map_[d] = std::move(r);
    }
    std::optional<ringscope::Symbol> lookup(std::string_view d, uint64_t addr) const override {
        auto it = map_.find(std::string(d));
        return it == map_.end() ? std::nullopt : it->second->lookup(addr);
    }
    bool has(std::string_view d) const override { return map_.count(std::string(d)) != 0; }
    std::vector<std::string> domains() const override { return {}; }

  private:
    std::map<std::string, std::shared_ptr<const ringscope::SymbolResolver>> map_;
};

class TestContext : public ringscope::TraceContext {
  public:
    explicit TestContext(const ringscope::format::FormatCatalog* cat = nullptr) : cat_(cat) {}
    std::string_view comm(int) const override { return "<...>"; }
    void register_comm(int, std::string_view) override {}
    const ringscope::EventType* type_by_id(uint32_t id) const override {
        return cat_ ? cat_->by_id(id) : nullptr;
    }
    const ringscope::EventType* find_type(std::string_view s, std::string_view n) const override {
        return cat_ ? cat_->find(s, n) : nullptr;
    }
    const ringscope::ResolverService& resolvers() const override { return res_; }
    std::string_view source_name() const override { return "test"; }
    int cpu_count() const override { return 1; }
    int long_size() const override { return 8; }
    bool big_endian() const override { return false; }
    TestResolvers& service() { return res_; }

  private:
    const ringscope::format::FormatCatalog* cat_;
    TestResolvers res_;
};

struct FormatFile {
    std::string system;
    std::filesystem::path path;
};

// Every SYSTEM/NAME/format below root.
inline std::vector<FormatFile> find_formats(const std::filesystem::path& root) {
    std::vector<FormatFile> out;
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(root, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
        if (it->path().filename() != "format") continue;
        out.push_back({it->path().parent_path().parent_path().filename().string(), it->path()});
    }
    std::sort(out.begin(), out.end(),
              [](const FormatFile& a, const FormatFile& b) { return a.path < b.path; });
    return out;
}

// Runs the oracle; returns one text per record (empty vector when it could not run).
inline std::vector<std::string> run_oracle(const std::string& args) {
    std::vector<std::string> out;
    FILE* p = popen(args.c_str(), "r");
    if (!p) return out;
    std::string all;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) all.append(buf, n);
    pclose(p);
    size_t pos = 0;
    while (pos < all.size()) {
        size_t nl = all.find('\n', pos);
        if (nl == std::string::npos) break;
        size_t len = std::stoul(all.substr(pos, nl - pos));
        out.push_back(all.substr(nl + 1, len));
        pos = nl + 1 + len + 1;
    }
    return out;
}

}  // namespace rtest
