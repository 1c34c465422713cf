// Key derivation: how a message becomes an idempotency key and a payload
// fingerprint. The pipeline calls DeriveIdentity for every message; producers
// call BusinessKeyFromPayload to attach the same business key the consumer
// will derive, and ValidateKey to check a key they chose themselves.
// User guide: docs/keys-and-conflicts.md and docs/hostile-input.md.
//
// Thread safety: every function here keeps no state and may be called from any
// thread at once.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "idem/handler.h"
#include "idem/message.h"
#include "idem/payload.h"
#include "idem/status.h"

namespace idem {

inline constexpr size_t kMaxKeyBytes = 512;

struct MessageIdentity {
  std::string key;          // the idempotency key (without the consumer group)
  std::string fingerprint;  // 32 hex digits (XXH3-128 of the canonical payload)
  Payload payload;          // the parsed payload, as the handler sees it (HandlerContext::payload)
};

// Derives key and fingerprint. The payload must be a JSON object nested at most
// 64 levels deep. Numbers count by their exact text in canonical form, never
// through a double (docs/hostile-input.md). Fails with a permanent
// InvalidArgument that names what is wrong (too deep, not UTF-8, not JSON, not
// an object, field missing, key has a control character, …); such a message is
// parked, never processed without protection. Never throws, whatever the payload.
Result<MessageIdentity> DeriveIdentity(const Message& message, const HandlerSpec& spec);

// The business key a producer attaches: the named top-level fields of a JSON
// object payload joined by ':' (escaped as in KeySpec), without a prefix.
// Never throws.
Result<std::string> BusinessKeyFromPayload(std::string_view payload, const std::vector<std::string>& fields);

// OK when `payload` is a JSON object nested at most 64 levels deep; otherwise
// says what is wrong and where. Never throws.
Status CheckJsonObject(std::string_view payload);

// Checks a key: non-empty, at most kMaxKeyBytes, valid UTF-8, no control characters
// (NUL included). Empty string when fine; otherwise the reason.
std::string ValidateKey(std::string_view key);

// XXH3-128 of `bytes` as 32 lowercase hex digits.
std::string Fingerprint(std::string_view bytes);

}  // namespace idem
