// SDK version and ABI number. A plugin records the ABI it was built against; the loader refuses
// a plugin whose ABI differs from the framework's.
#pragma once

#define RINGSCOPE_SDK_VERSION_MAJOR 0
#define RINGSCOPE_SDK_VERSION_MINOR 2
#define RINGSCOPE_SDK_VERSION_PATCH 0
#define RINGSCOPE_SDK_VERSION "0.2.0"

// Bump whenever a class layout, virtual table or inline function of sdk/ changes incompatibly.
#define RINGSCOPE_SDK_ABI 3

namespace ringscope {
inline constexpr unsigned kSdkAbi = RINGSCOPE_SDK_ABI;
inline constexpr const char* kSdkVersion = RINGSCOPE_SDK_VERSION;
}  // namespace ringscope
