#include "framework/symbols/lazy_kallsyms_resolver.hpp"

namespace ringscope::symbols {

LazyKallsymsResolver::LazyKallsymsResolver(std::string_view text, std::string origin,
                                           std::shared_ptr<const void> owner)
    : text_(text), origin_(std::move(origin)), owner_(std::move(owner)) {}

LazyKallsymsResolver::~LazyKallsymsResolver() {
    if (prefetch_.joinable()) prefetch_.join();
}

void LazyKallsymsResolver::prefetch() {
    if (prefetch_.joinable()) return;
    try {
        prefetch_ = std::thread([this] { parse_once(); });
    } catch (const std::system_error&) {
        // No thread to be had: the first look-up parses.
    }
}

void LazyKallsymsResolver::parse_once() const {
    std::call_once(once_, [this] {
        auto parsed = KallsymsResolver::parse(text_, origin_, owner_);
        if (parsed)
            table_ = std::move(*parsed);
        else
            error_ = std::move(parsed).error();
    });
}

std::optional<Symbol> LazyKallsymsResolver::lookup(uint64_t addr) const {
    parse_once();
    return table_ ? table_->lookup(addr) : std::nullopt;
}

std::string LazyKallsymsResolver::describe() const {
    parse_once();
    return table_ ? table_->describe() : "kallsyms:" + origin_ + " (" + error_->to_string() + ")";
}

Status LazyKallsymsResolver::status() const {
    parse_once();
    if (error_) return *error_;
    return Status::success();
}

std::shared_ptr<const KallsymsResolver> LazyKallsymsResolver::table() const {
    parse_once();
    return table_;
}

}  // namespace ringscope::symbols
