// A filter tree compiled for one event type: the reachable nodes packed into a small array, the
// fields resolved to offsets, strings and regexes owned beside them. Evaluation walks the array
// without allocating.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <ringscope/event.hpp>

#include "framework/filter/filter_tree.hpp"

namespace ringscope::filter {

class Program {
  public:
    static Program compile(const Tree& tree);

    // 1 match, 0 miss, -1 evaluation error (libtraceevent's err != 0).
    int evaluate(const Event& ev) const noexcept;
    const std::string& description() const noexcept { return description_; }

  private:
    struct Instr {
        NodeKind kind = NodeKind::boolean;
        uint8_t op = 0;
        bool truth = false;
        int32_t left = -1;
        int32_t right = -1;
        int32_t field = -1;
        int32_t aux = -1;  // string index (str nodes), regex index (=~ / !~)
        // num nodes of the common shape `field op number`: the field and the constant, so that
        // the comparison needs no operand walk.
        int32_t direct_field = -1;
        uint64_t number = 0;
    };

    int32_t pack(const Tree& tree, int32_t node);
    int eval_bool(int32_t i, const Event& ev) const noexcept;
    uint64_t eval_value(int32_t i, const Event& ev, bool& err) const noexcept;
    uint64_t field_value(const FieldRef& f, const Event& ev) const noexcept;
    std::string_view field_string(const FieldRef& f, const Event& ev, char* scratch,
                                  size_t cap) const noexcept;

    std::vector<Instr> code_;
    std::vector<FieldRef> fields_;
    std::vector<std::string> strings_;
    std::vector<std::shared_ptr<const Regex>> regexes_;
    int32_t root_ = -1;
    std::string description_;
};

}  // namespace ringscope::filter
