// Errors are values: an Errc names the kind, the Error carries the context (file, byte offset or
// line/column) needed to print one clear line. Expected<T> holds a T or an Error.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>

namespace ringscope {

enum class Errc : uint8_t {
    ok = 0,
    io,             // open/read/write/mmap failed (errno text in the message)
    truncated,      // data ends before a structure does
    bad_magic,      // not the format it claims to be
    bad_version,    // a format version this build does not read
    corrupt,        // a value that cannot be right (length past the end, ...)
    decompress,     // a compressed chunk that does not decompress
    unsupported,    // valid but not handled (unknown compression, ...)
    no_format,      // an event id with no format
    parse,          // text that does not parse (format file, filter, config)
    invalid_argument,
    not_found,
    plugin,         // a plugin could not be loaded or failed
};

const char* errc_name(Errc e) noexcept;

class Error {
public:
    static constexpr int64_t kNoOffset = -1;

    Error() = default;
    Error(Errc code, std::string message) : code_(code), message_(std::move(message)) {}

    Errc code() const noexcept { return code_; }
    const std::string& message() const noexcept { return message_; }
    const std::string& file() const noexcept { return file_; }
    int64_t offset() const noexcept { return offset_; }
    int line() const noexcept { return line_; }
    int column() const noexcept { return column_; }

    // Context is added as the error travels up: the reader knows the offset, the caller the file.
    Error& at_offset(int64_t off) & {
        offset_ = off;
        return *this;
    }
    Error&& at_offset(int64_t off) && { return std::move(at_offset(off)); }
    Error& at_line(int line, int column = 0) & {
        line_ = line;
        column_ = column;
        return *this;
    }
    Error&& at_line(int line, int column = 0) && { return std::move(at_line(line, column)); }
    Error& in_file(std::string file) & {
        if (file_.empty()) file_ = std::move(file);
        return *this;
    }
    Error&& in_file(std::string file) && { return std::move(in_file(std::move(file))); }

    // "FILE: offset 0x1234: message" / "FILE:12:5: message" / "message".
    std::string to_string() const;

private:
    Errc code_ = Errc::ok;
    std::string message_;
    std::string file_;
    int64_t offset_ = kNoOffset;
    int line_ = 0;
    int column_ = 0;
};

template <class T>
class [[nodiscard]] Expected {
public:
    Expected(T value) : v_(std::move(value)) {}
    Expected(Error error) : v_(std::move(error)) {}

    explicit operator bool() const noexcept { return v_.index() == 0; }
    bool has_value() const noexcept { return v_.index() == 0; }
    T& value() & { return std::get<0>(v_); }
    const T& value() const& { return std::get<0>(v_); }
    T&& value() && { return std::get<0>(std::move(v_)); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    Error& error() & { return std::get<1>(v_); }
    const Error& error() const& { return std::get<1>(v_); }
    Error&& error() && { return std::get<1>(std::move(v_)); }

private:
    std::variant<T, Error> v_;
};

// Expected<void>: success or an Error.
class [[nodiscard]] Status {
public:
    Status() = default;
    Status(Error error) : error_(std::move(error)), failed_(true) {}
    static Status success() { return Status(); }

    explicit operator bool() const noexcept { return !failed_; }
    bool ok() const noexcept { return !failed_; }
    const Error& error() const& { return error_; }
    Error&& error() && { return std::move(error_); }

private:
    Error error_;
    bool failed_ = false;
};

}  // namespace ringscope
