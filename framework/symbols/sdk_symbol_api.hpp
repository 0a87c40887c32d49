// Implemented here, declared in the SDK (sdk/include/ringscope/resolver.hpp).
#pragma once

#include <ringscope/resolver.hpp>
