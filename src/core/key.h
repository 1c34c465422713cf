// Idempotency keys and payload fingerprints. The declarations users need are
// public (idem/key.h); the overloads with explicit JSON limits are for idem's
// own pipeline and tools.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/json_scan.h"
#include "idem/key.h"

namespace idem {

// As in idem/key.h, with the payload checked against `limits` (size, nesting
// depth; a linear scan before any parsing) instead of the defaults.
Result<MessageIdentity> DeriveIdentity(const Message& message, const HandlerSpec& spec, const JsonLimits& limits);
Result<std::string> BusinessKeyFromPayload(std::string_view payload, const std::vector<std::string>& fields,
                                           const JsonLimits& limits);
Status CheckJsonObject(std::string_view payload, const JsonLimits& limits);

}  // namespace idem
