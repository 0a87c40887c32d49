// check_outputs(): outputs that would destroy an input, a device node or each other.
#include "framework/sinks/output_check.hpp"

#include <filesystem>
#include <optional>

#include <sys/stat.h>

namespace ringscope {
namespace {

// What makes two names one file: device and inode when it exists, else the absolute path with
// its existing folders resolved.
struct Identity {
    bool exists = false;
    dev_t dev = 0;
    ino_t ino = 0;
    mode_t mode = 0;
    std::string path;

    bool same(const Identity& o) const {
        if (exists && o.exists) return dev == o.dev && ino == o.ino;
        return !exists && !o.exists && path == o.path;
    }
};

Identity identify(const std::string& name) {
    Identity id;
    struct stat st {};
    if (::stat(name.c_str(), &st) == 0) {
        id.exists = true;
        id.dev = st.st_dev;
        id.ino = st.st_ino;
        id.mode = st.st_mode;
    }
    std::error_code ec;
    std::filesystem::path p = std::filesystem::weakly_canonical(std::filesystem::absolute(name, ec), ec);
    id.path = ec ? name : p.string();
    return id;
}

const char* kind(mode_t m) {
    if (S_ISDIR(m)) return "a folder";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    if (S_ISFIFO(m)) return "a FIFO";
    if (S_ISSOCK(m)) return "a socket";
    return "not a regular file";
}

}  // namespace

std::vector<std::pair<size_t, Error>> sinks::output_problems(const std::vector<std::string>& outputs,
                                                             const std::vector<std::string>& inputs) {
    std::vector<std::pair<size_t, Error>> problems;
    std::vector<Identity> in;
    for (const auto& i : inputs) in.push_back(identify(i));
    std::vector<std::pair<const std::string*, Identity>> seen;
    for (size_t i = 0; i < outputs.size(); ++i) {
        const std::string& o = outputs[i];
        if (o.empty() || o == "-") continue;
        auto bad = [&](const std::string& why) {
            return Error(Errc::invalid_argument, "output '" + o + "' " + why + ", nothing was written");
        };
        Identity id = identify(o);
        std::optional<Error> e;
        if (id.exists && !S_ISREG(id.mode))
            e = bad(std::string("is ") + kind(id.mode) + ", not a regular file");
        for (size_t k = 0; !e && k < in.size(); ++k)
            if (id.same(in[k]))
                e = bad(inputs[k] == o ? "is also an input" : "is also the input '" + inputs[k] + "'");
        for (size_t k = 0; !e && k < seen.size(); ++k)
            if (id.same(seen[k].second))
                e = bad(*seen[k].first == o ? "is named twice"
                                            : "is the same file as '" + *seen[k].first + "'");
        if (e)
            problems.emplace_back(i, std::move(*e));
        else
            seen.emplace_back(&o, std::move(id));
    }
    return problems;
}

Status check_outputs(const std::vector<std::string>& outputs, const std::vector<std::string>& inputs) {
    auto problems = sinks::output_problems(outputs, inputs);
    if (!problems.empty()) return std::move(problems.front().second);
    return {};
}

}  // namespace ringscope
