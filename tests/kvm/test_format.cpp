#include "test_format.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <iterator>
#include <sstream>

namespace kvm_test {
namespace {

std::string trim(std::string s) {
    size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// Values in the kernel's tables: numbers, + | << and parentheses, unary minus.
struct ValueParser {
    const std::string& s;
    size_t p = 0;
    void ws() {
        while (p < s.size() && std::isspace(static_cast<unsigned char>(s[p]))) ++p;
    }
    uint64_t primary() {
        ws();
        if (s[p] == '(') {
            ++p;
            uint64_t v = expr();
            ws();
            ++p;  // ')'
            return v;
        }
        if (s[p] == '-') {
            ++p;
            return static_cast<uint64_t>(-static_cast<int64_t>(primary()));
        }
        size_t used = 0;
        uint64_t v = std::stoull(s.substr(p), &used, 0);
        p += used;
        return v;
    }
    uint64_t shift() {
        uint64_t v = primary();
        for (ws(); s.compare(p, 2, "<<") == 0; ws()) {
            p += 2;
            v <<= primary();
        }
        return v;
    }
    uint64_t sum() {
        uint64_t v = shift();
        for (ws(); p < s.size() && s[p] == '+'; ws()) {
            ++p;
            v += shift();
        }
        return v;
    }
    uint64_t expr() {
        uint64_t v = sum();
        for (ws(); p < s.size() && s[p] == '|'; ws()) {
            ++p;
            v |= sum();
        }
        return v;
    }
};

// The text of one argument up to a top-level ',' or ')'.
size_t arg_end(const std::string& s, size_t p) {
    int depth = 0;
    bool in_str = false;
    for (; p < s.size(); ++p) {
        char c = s[p];
        if (in_str) {
            if (c == '\\')
                ++p;
            else if (c == '"')
                in_str = false;
            continue;
        }
        if (c == '"')
            in_str = true;
        else if (c == '(' || c == '{')
            ++depth;
        else if (c == ')' || c == '}') {
            if (depth == 0) return p;
            --depth;
        } else if (c == ',' && depth == 0)
            return p;
    }
    return p;
}

void parse_tables(const std::string& fmt, ringscope::EventType& t) {
    for (const char* fn : {"__print_symbolic(", "__print_flags("}) {
        bool flags = std::string(fn) == "__print_flags(";
        for (size_t at = fmt.find(fn); at != std::string::npos; at = fmt.find(fn, at + 1)) {
            ringscope::ValueTable vt;
            vt.is_flags = flags;
            size_t p = at + std::string(fn).size();
            size_t e = arg_end(fmt, p);
            vt.field = trim(fmt.substr(p, e - p));
            p = e + 1;
            if (flags) {
                e = arg_end(fmt, p);
                std::string d = trim(fmt.substr(p, e - p));
                vt.delimiter = d.size() >= 2 ? d.substr(1, d.size() - 2) : d;
                p = e + 1;
            }
            while (p < fmt.size()) {
                while (p < fmt.size() && (fmt[p] == ' ' || fmt[p] == ',')) ++p;
                if (p >= fmt.size() || fmt[p] != '{') break;
                size_t ve = arg_end(fmt, p + 1);
                std::string vtext = fmt.substr(p + 1, ve - p - 1);
                ValueParser vp{vtext};
                uint64_t v = vp.expr();
                size_t q1 = fmt.find('"', ve), q2 = fmt.find('"', q1 + 1);
                vt.entries.emplace_back(v, fmt.substr(q1 + 1, q2 - q1 - 1));
                p = fmt.find('}', q2) + 1;
            }
            t.tables.push_back(std::move(vt));
        }
    }
}

}  // namespace

std::string data_path(const std::string& rel) {
    return std::string(RINGSCOPE_TEST_DATA_DIR) + "/kvm/" + rel;
}

std::unique_ptr<ringscope::EventType> load_format(const std::string& path, const std::string& system) {
    auto t = std::make_unique<ringscope::EventType>();
    t->system = system;
    std::istringstream in(read_file(path));
    std::string line;
    bool common = true, any = false;
    while (std::getline(in, line)) {
        if (line.rfind("name: ", 0) == 0)
            t->name = line.substr(6);
        else if (line.rfind("ID: ", 0) == 0)
            t->id = static_cast<uint32_t>(std::stoul(line.substr(4)));
        else if (line.rfind("print fmt: ", 0) == 0) {
            t->print_fmt = line.substr(11);
            parse_tables(t->print_fmt, *t);
        } else if (trim(line).empty()) {
            if (any) common = false;
        } else if (line.find("field:") != std::string::npos) {
            ringscope::FieldInfo f;
            size_t a = line.find("field:") + 6, b = line.find(';', a);
            std::string decl = line.substr(a, b - a);
            size_t name_at = decl.find_last_of(' ');
            f.type = decl.substr(0, name_at);
            f.name = decl.substr(name_at + 1);
            if (auto br = f.name.find('['); br != std::string::npos) {
                f.array_len = static_cast<uint32_t>(std::stoul(f.name.substr(br + 1)));
                f.name.resize(br);
                f.flags |= ringscope::kFieldArray;
            }
            auto num = [&](const char* key) {
                size_t k = line.find(key);
                return static_cast<uint32_t>(std::stoul(line.substr(k + std::string(key).size())));
            };
            f.offset = num("offset:");
            f.size = num("size:");
            if (num("signed:")) f.flags |= ringscope::kFieldSigned;
            f.elem_size = f.array_len ? f.size / f.array_len : f.size;
            (common ? t->common_fields : t->fields).push_back(f);
            any = true;
        }
    }
    EXPECT_FALSE(t->name.empty()) << path;
    EXPECT_FALSE(t->fields.empty()) << path;
    t->finalize();
    return t;
}

void FakePrintContext::print_default(const ringscope::Event&, ringscope::TextBuffer& out) {
    ++defaults;
    out.append("<default>");
}

std::vector<uint8_t> build_record(const ringscope::EventType& type, int pid,
                                  const std::vector<std::pair<std::string, std::string>>& fields, bool big) {
    std::vector<uint8_t> data(256, 0);
    auto put = [&](uint32_t off, uint32_t size, uint64_t v) {
        for (uint32_t i = 0; i < size && i < 8; ++i)
            data[off + i] = static_cast<uint8_t>(v >> (big ? 8 * (size - 1 - i) : 8 * i));
    };
    put(0, 2, type.id);
    put(4, 4, static_cast<uint32_t>(pid));
    for (const auto& [name, value] : fields) {
        const ringscope::FieldInfo* f = type.find_field(name);
        if (!f) {
            ADD_FAILURE() << "no field " << name << " in " << type.name;
            continue;
        }
        if (value.rfind("hex:", 0) == 0) {
            for (size_t i = 0; 4 + 2 * i + 1 < value.size(); ++i)
                data[f->offset + i] =
                    static_cast<uint8_t>(std::stoul(value.substr(4 + 2 * i, 2), nullptr, 16));
        } else {
            put(f->offset, f->size, std::stoull(value, nullptr, 0));
        }
    }
    return data;
}

}  // namespace kvm_test
