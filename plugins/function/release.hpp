// Which trace-cmd release the plugin prints as: fgraph:compat, which `report --compat` sets (an
// unprefixed -O compat=VERSION), or where nothing set it (stream, the SDK's iteration) the release
// RINGSCOPE_COMPAT names when the handler is made.
#pragma once

#include <ringscope/plugin.hpp>

namespace ringscope::function {

enum class Release { k3_1, k3_4 };

inline bool prints_as_3_4(const PrintOptionValue* compat, Release fallback) {
    return compat && !compat->value.empty() ? compat->value == "3.4" : fallback == Release::k3_4;
}

}  // namespace ringscope::function
