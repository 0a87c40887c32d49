#include "framework/format/format_parser.hpp"

#include <cstdlib>
#include <cstring>
#include <string>

#include "framework/format/print_parser.hpp"
#include "framework/format/tokenizer.hpp"

namespace ringscope::format {
namespace {

unsigned long to_ulong(const std::string& s) {
    return std::strtoul(s.c_str(), nullptr, 0);
}

// libtraceevent's type_size(): element size of "type [] name" dynamic arrays.
uint32_t type_size(const std::string& name) {
    static constexpr struct {
        const char* type;
        uint32_t size;
    } kTable[] = {{"u8", 1},  {"u16", 2}, {"u32", 4}, {"u64", 8}, {"s8", 1},
                  {"s16", 2}, {"s32", 4}, {"s64", 8}, {"char", 1}};
    for (const auto& t : kTable)
        if (name == t.type) return t.size;
    return 0;
}

class HeaderParser {
  public:
    HeaderParser(Tokenizer& tk, bool ftrace, int long_size)
        : tk_(tk), ftrace_(ftrace), long_size_(long_size) {}

    Error error(const std::string& what) const {
        auto [line, col] = tk_.last_position();
        return Error(Errc::parse, what).at_line(line, col);
    }

    // read_expected(): the next token must be exactly this.
    bool expect(TokType type, const char* text, bool newline_ok = true) {
        TokType t = newline_ok ? tk_.next(tok_) : tk_.next_item(tok_);
        return t == type && tok_ == text;
    }
    bool expect_type(TokType type, std::string& out) {
        TokType t = tk_.next(out);
        return t == type;
    }

    // One list of fields, up to the blank line that ends it.
    Status read_fields(std::vector<PField>& out, bool common) {
        for (;;) {
            TokType type = tk_.next(tok_);
            if (type == TokType::newline) return Status::success();
            if (type != TokType::item || tok_ != "field")
                return error("expected 'field', found '" + tok_ + "'");
            type = tk_.next(tok_);
            if (ftrace_ && type == TokType::item && tok_ == "special") type = tk_.next(tok_);
            if (type != TokType::op || tok_ != ":") return error("expected ':' after 'field'");
            PField f;
            f.common = common;
            uint32_t size_dynamic = 0;
            if (Status st = read_declaration(f, size_dynamic); !st) return st;
            if (Status st = read_layout(f); !st) return st;
            set_element_size(f, size_dynamic);
            out.push_back(std::move(f));
        }
    }

  private:
    // "TYPE NAME[LEN];" (or "TYPE [] NAME;") after "field:": the type, name, array length and
    // the flags they imply. `size_dynamic`: the element size a "TYPE []" names.
    Status read_declaration(PField& f, uint32_t& size_dynamic) {
        TokType type = TokType::none;
        if (Status st = read_type_and_name(f, type); !st) return st;
        if (type != TokType::op) return error("expected ';' or '[' after field '" + f.name + "'");
        if (tok_ == "[")
            if (Status st = read_brackets(f, type, size_dynamic); !st) return st;
        if ((f.flags & kTepArray) &&
            (f.type.find("char") != std::string::npos || f.type.find("u8") != std::string::npos ||
             f.type.find("s8") != std::string::npos))
            f.flags |= kTepString;
        if (f.type.compare(0, 10, "__data_loc") == 0) f.flags |= kTepDynamic;
        if (f.type.compare(0, 9, "__rel_loc") == 0) f.flags |= kTepDynamic | kTepRelative;
        if (f.type.find("long") != std::string::npos) f.flags |= kTepLong;
        if (type != TokType::op || tok_ != ";") return error("expected ';' after field '" + f.name + "'");
        return Status::success();
    }

    // The words of the type, then the name (the last word); `type`: the token after the name.
    Status read_type_and_name(PField& f, TokType& type) {
        std::string last;
        if (!expect_type(TokType::item, last)) return error("expected a field type");
        bool have_type = false;
        std::string delim = " ";
        for (;;) {
            type = tk_.next(tok_);
            if (type == TokType::item || (type == TokType::op && tok_ == "*") ||
                (ftrace_ && type == TokType::op && tok_ == ".")) {
                if (tok_ == "*") f.flags |= kTepPointer;
                if (have_type) {
                    f.type += delim;
                    f.type += last;
                } else {
                    f.type = last;
                    have_type = true;
                }
                last = tok_;
                delim = " ";
                continue;
            }
            if (type == TokType::delim && last == "__attribute__" && tok_ == "(") {
                // __attribute__((user)) and friends become part of the type
                f.type += " " + last + "(";
                have_type = true;
                delim = " ";
                read_attribute(f.type, last, delim);
                continue;
            }
            break;
        }
        if (!have_type) return error("field has no type");
        f.name = last;
        return Status::success();
    }

    // The rest of "__attribute__((...))" after its first '(', onto `type_text`; `last`: its last
    // token, `delim`: what goes before the type's next word.
    void read_attribute(std::string& type_text, std::string& last, std::string& delim) {
        int depth = 1;
        for (TokType type; (type = tk_.next(tok_)) != TokType::none;) {
            if (type == TokType::delim) {
                if (tok_ == "(")
                    ++depth;
                else if (tok_ == ")")
                    --depth;
                if (!depth) break;
                type_text += tok_;
                delim = "";
            } else {
                type_text += delim + tok_;
                delim = " ";
            }
            last = tok_;
        }
    }

    // "[LEN]" after the name (at "["), or "[] NAME" after the last word of the type; `type`: the
    // token after it.
    Status read_brackets(PField& f, TokType& type, uint32_t& size_dynamic) {
        TokType last_type = type;
        std::string brackets = "[";
        f.flags |= kTepArray;
        type = tk_.next(tok_);
        f.arraylen = type == TokType::item ? static_cast<uint32_t>(to_ulong(tok_)) : 0;
        while (tok_ != "]") {
            if (type == TokType::none) return error("unterminated '[' in field '" + f.name + "'");
            brackets += (last_type == TokType::item && type == TokType::item) ? " " : "";
            last_type = type;
            brackets += tok_;
            f.arraylen = static_cast<uint32_t>(to_ulong(tok_));
            type = tk_.next(tok_);
        }
        brackets += "]";
        type = tk_.next(tok_);
        if (type == TokType::item) {
            // "type [] name": what looked like the name was the last word of the type
            f.type += " " + f.name + brackets;
            size_dynamic = type_size(f.name);
            f.name = tok_;
            type = tk_.next(tok_);
        } else {
            f.type += brackets;
        }
        return Status::success();
    }

    // "offset:N;\tsize:N;[\tsigned:N;]" up to the end of the line.
    Status read_layout(PField& f) {
        std::string num;
        if (!expect(TokType::item, "offset") || !expect(TokType::op, ":") || !expect_type(TokType::item, num))
            return error("expected 'offset:' in field '" + f.name + "'");
        f.offset = static_cast<uint32_t>(to_ulong(num));
        if (!expect(TokType::op, ";") || !expect(TokType::item, "size") || !expect(TokType::op, ":") ||
            !expect_type(TokType::item, num))
            return error("expected 'size:' in field '" + f.name + "'");
        f.size = static_cast<uint32_t>(to_ulong(num));
        // Old kernels: a 2-byte __data_loc is an offset only, the string runs to its NUL.
        if ((f.flags & kTepDynamic) && f.size == 2) f.flags |= kTepString | kTepArray;
        if (!expect(TokType::op, ";")) return error("expected ';' after size in field '" + f.name + "'");
        const TokType type = tk_.next(tok_);
        if (type == TokType::newline) return Status::success();
        if (type != TokType::item || tok_ != "signed" || !expect(TokType::op, ":") ||
            !expect_type(TokType::item, num))
            return error("expected 'signed:' or end of line in field '" + f.name + "'");
        if (to_ulong(num)) f.flags |= kTepSigned;
        if (!expect(TokType::op, ";") || !expect_type(TokType::newline, tok_))
            return error("expected end of line after field '" + f.name + "'");
        return Status::success();
    }

    void set_element_size(PField& f, uint32_t size_dynamic) const {
        if (!(f.flags & (kTepArray | kTepDynamic))) {
            f.elementsize = f.size;
        } else if (f.arraylen) {
            f.elementsize = f.size / f.arraylen;
        } else if (f.flags & kTepDynamic) {
            f.elementsize = size_dynamic;
        } else if (f.flags & kTepString) {
            f.elementsize = 1;
        } else if (f.flags & kTepLong) {
            f.elementsize = static_cast<uint32_t>(long_size_);
        }
    }

    Tokenizer& tk_;
    bool ftrace_;
    int long_size_;
    std::string tok_;
};

FieldInfo to_field_info(const PField& f) {
    FieldInfo fi;
    fi.name = f.name;
    fi.type = f.type;
    fi.offset = f.offset;
    fi.size = f.size;
    fi.elem_size = f.elementsize;
    fi.array_len = f.arraylen;
    if (f.flags & kTepSigned) fi.flags |= kFieldSigned;
    if ((f.flags & kTepArray) && !(f.flags & kTepDynamic)) fi.flags |= kFieldArray;
    if (f.flags & kTepRelative)
        fi.flags |= kFieldRelLoc;
    else if (f.flags & kTepDynamic)
        fi.flags |= kFieldDynamic;
    if (f.flags & kTepString) fi.flags |= kFieldString;
    if (f.flags & kTepPointer) fi.flags |= kFieldPointer;
    if (f.type.find("long") != std::string::npos && f.type.find("long long") == std::string::npos)
        fi.flags |= kFieldLong;
    return fi;
}

}  // namespace

Expected<ParsedFormat> parse_format(std::string_view text, std::string_view system, int long_size) {
    Tokenizer tk(text);
    bool ftrace = system == "ftrace";
    HeaderParser hp(tk, ftrace, long_size);
    std::string tok;

    auto type = std::make_unique<EventType>();
    auto prog = std::make_unique<Program>();
    prog->long_size = long_size;
    prog->is_ftrace = ftrace;

    if (!hp.expect(TokType::item, "name") || !hp.expect(TokType::op, ":") ||
        !hp.expect_type(TokType::item, tok))
        return hp.error("expected 'name: NAME'");
    type->name = tok;
    prog->is_bprint = ftrace && tok == "bprint";
    if (!hp.expect(TokType::item, "ID", false) || !hp.expect(TokType::op, ":") ||
        !hp.expect_type(TokType::item, tok))
        return hp.error("expected 'ID: N'");
    long id = std::strtol(tok.c_str(), nullptr, 0);
    if (id < 0 || id > 0xffffffffL) return hp.error("bad event ID '" + tok + "'");
    type->id = static_cast<uint32_t>(id);
    type->system = std::string(system);
    if (!hp.expect(TokType::item, "format", false) || !hp.expect(TokType::op, ":") ||
        !hp.expect_type(TokType::newline, tok))
        return hp.error("expected 'format:'");

    std::vector<PField> common, fields;
    if (Status st = hp.read_fields(common, true); !st) return std::move(st).error();
    if (Status st = hp.read_fields(fields, false); !st) return std::move(st).error();
    prog->nr_common = static_cast<uint32_t>(common.size());
    for (auto& f : common) {
        type->common_fields.push_back(to_field_info(f));
        prog->fields.push_back(std::move(f));
    }
    for (auto& f : fields) {
        type->fields.push_back(to_field_info(f));
        prog->fields.push_back(std::move(f));
    }
    prog->string_cleared = std::make_unique<std::atomic<bool>[]>(prog->fields.size());

    size_t at = text.find("print fmt: ", tk.offset());
    if (at != std::string_view::npos) {
        std::string_view pf = text.substr(at + 11);
        while (!pf.empty() && (pf.back() == '\n' || pf.back() == '\0')) pf.remove_suffix(1);
        type->print_fmt = std::string(pf);
    }

    PrintParser pp(tk, *prog);
    pp.parse();
    pp.fill_tables(type->tables);
    type->finalize();
    return ParsedFormat{std::move(type), std::move(prog), pp.sets_einval()};
}

}  // namespace ringscope::format
