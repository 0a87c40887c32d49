// Every ELF file the build produces: no RUNPATH/RPATH entry that is empty (the current directory)
// or relative (resolved against the current directory); only absolute folders and $ORIGIN-based ones.
#include <gelf.h>
#include <libelf.h>

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace fs = std::filesystem;

namespace {

bool is_elf(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    char magic[4] = {};
    return in.read(magic, 4) && std::string(magic, 4) ==
                                    "\x7f"
                                    "ELF";
}

// The DT_RUNPATH and DT_RPATH strings of one ELF file.
std::vector<std::string> search_paths(const fs::path& p) {
    std::vector<std::string> out;
    const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return out;
    Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
    for (Elf_Scn* scn = nullptr; elf && (scn = elf_nextscn(elf, scn));) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC) continue;
        Elf_Data* data = elf_getdata(scn, nullptr);
        for (size_t i = 0; data && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; ++i) {
            GElf_Dyn dyn;
            if (!gelf_getdyn(data, static_cast<int>(i), &dyn)) break;
            if (dyn.d_tag != DT_RUNPATH && dyn.d_tag != DT_RPATH) continue;
            if (const char* s = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val)) out.emplace_back(s);
        }
    }
    if (elf) elf_end(elf);
    ::close(fd);
    return out;
}

// The entries of a colon-separated list that are empty or neither absolute nor $ORIGIN-based.
std::vector<std::string> unsafe_entries(const std::string& list) {
    std::vector<std::string> bad;
    size_t start = 0;
    while (true) {
        const size_t end = list.find(':', start);
        const std::string e = list.substr(start, end == std::string::npos ? std::string::npos : end - start);
        if (e.empty() || !(e[0] == '/' || e.rfind("$ORIGIN", 0) == 0 || e.rfind("${ORIGIN}", 0) == 0))
            bad.push_back("'" + e + "'");
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return bad;
}

TEST(Runpath, EntriesOfTheCheckerItself) {
    EXPECT_TRUE(unsafe_entries("/a/lib:$ORIGIN/../lib:${ORIGIN}").empty());
    EXPECT_EQ(unsafe_entries("/a/lib:").size(), 1u);
    EXPECT_EQ(unsafe_entries(":/a").size(), 1u);
    EXPECT_EQ(unsafe_entries("/a::/b").size(), 1u);
    EXPECT_EQ(unsafe_entries("lib").size(), 1u);
    EXPECT_EQ(unsafe_entries("").size(), 1u);
}

// The regular files under root, depth first. Other tests run at the same time
// and make and remove scratch folders under the build tree: a folder or file that vanishes while
// it is walked is skipped (its contents are no build output), only root itself must be readable.
template <class Visit>
void walk_files(const fs::path& root, Visit&& visit, std::error_code& root_error) {
    std::vector<fs::path> folders{root};
    while (!folders.empty()) {
        const fs::path folder = std::move(folders.back());
        folders.pop_back();
        std::error_code ec;
        fs::directory_iterator it(folder, fs::directory_options::skip_permission_denied, ec);
        if (ec && folder == root) root_error = ec;
        for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
            std::error_code type_error;
            if (it->is_symlink(type_error)) continue;
            if (it->is_directory(type_error))
                folders.push_back(it->path());
            else if (it->is_regular_file(type_error))
                visit(it->path());
        }
    }
}

TEST(Runpath, NoEmptyOrRelativeEntryInAnyBuiltElf) {
    ASSERT_NE(elf_version(EV_CURRENT), EV_NONE);
    const fs::path root = RINGSCOPE_BINARY_DIR;
    size_t elves = 0, with_path = 0;
    bool saw_cli = false, saw_plugin = false;
    std::error_code ec;
    walk_files(
        root,
        [&](const fs::path& path) {
            if (!is_elf(path)) return;
            ++elves;
            for (const auto& list : search_paths(path)) {
                ++with_path;
                if (path == root / "ringscope") saw_cli = true;
                if (path.parent_path() == root / "plugins") saw_plugin = true;
                for (const auto& e : unsafe_entries(list))
                    ADD_FAILURE() << path.string() << ": RUNPATH [" << list << "] has the entry " << e;
            }
        },
        ec);
    EXPECT_FALSE(ec) << root.string() << ": " << ec.message();
    EXPECT_TRUE(saw_cli) << "build/ringscope has no RUNPATH (it needs one to find build/lib)";
    EXPECT_TRUE(saw_plugin) << "no plugin in build/plugins has a RUNPATH";
    std::printf("%zu ELF files, %zu search paths checked\n", elves, with_path);
}

}  // namespace
