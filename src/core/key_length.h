// The one key-length rule, shared by producers and consumers.
//
// A consumer's idempotency key is "<prefix>:<business key>", where the prefix is
// the handler's key prefix (by default its topic) and ':' and '\' inside the
// business key are escaped with '\'. The whole of it must fit kMaxKeyBytes. A
// producer that checks only the business key accepts keys every consumer then
// parks; `idem publish` and the pipeline both ask this rule instead.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace idem {

// Bytes of the idempotency key derived from business key `key` under `prefix`
// (escapes counted, as the consumer writes them).
size_t DerivedKeyBytes(std::string_view prefix, std::string_view key);

// The longest business key (without ':' or '\') that fits under `prefix`; 0 when
// the prefix alone leaves no room.
size_t MaxBusinessKeyBytes(std::string_view prefix);

// "" when the derived key fits; otherwise why not and what to do.
std::string CheckDerivedKeyLength(std::string_view prefix, std::string_view key);

// The reason given for a derived key of `total_bytes` under `prefix`.
std::string KeyTooLongReason(std::string_view prefix, size_t total_bytes);

}  // namespace idem
