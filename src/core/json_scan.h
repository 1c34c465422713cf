// The checks a payload passes before anything parses it recursively: its size,
// how deep it nests and whether it is UTF-8. One pass, no recursion, no
// allocation, so a hostile payload (100,000 nested arrays, a gigabyte of
// brackets) costs a linear scan and a reason, never a stack overflow.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "idem/status.h"

namespace idem {

inline constexpr size_t kDefaultMaxJsonDepth = 64;
// Whatever a caller configures, the parser never nests deeper than this: its
// recursion stays far inside any thread's stack.
inline constexpr size_t kMaxJsonDepthCeiling = 1000;

struct JsonLimits {
  size_t max_depth = kDefaultMaxJsonDepth;  // containers inside containers; `{}` is depth 1
  size_t max_bytes = SIZE_MAX;              // payload size; default unlimited (the caller may check its own)
  // The depth actually enforced: max_depth, but at most kMaxJsonDepthCeiling.
  size_t EffectiveDepth() const { return max_depth < kMaxJsonDepthCeiling ? max_depth : kMaxJsonDepthCeiling; }
};

// OK when `payload` is within the limits and valid UTF-8. Otherwise an
// InvalidArgument naming the problem: "payload nests 100000 levels deep, over
// the limit of 64", "payload is not valid UTF-8 (byte 17)", "payload is N bytes,
// over the limit of M". Brackets inside JSON strings do not count as nesting.
Status ScanJsonLimits(std::string_view payload, const JsonLimits& limits);

// True when `s` is valid UTF-8 (no overlong forms, no surrogates, at most
// U+10FFFF). With `bad_at`, the offset of the first invalid byte.
bool ValidUtf8(std::string_view s, size_t* bad_at = nullptr);

}  // namespace idem
