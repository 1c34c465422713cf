// Payloads a hostile or broken producer sends, for the poison fault: numbers
// beyond double range, nesting far deeper than any business event, bytes that
// are not UTF-8, and ids longer than a double can hold. Each one must end in the
// terminal queue with a reason (or, for the long ids, be applied exactly once),
// and never take a consumer down.
#pragma once

#include <string>

namespace idem::sim {

enum class Hostile {
  kHugeAmount,          // "amount": 1e400 — the key is fine, the handler cannot read the amount
  kNegativeHugeAmount,  // "amount": -1e400
  kHugeId,              // "payment_id": 1e<400+n> — a valid key; the handler cannot read the payload
  kDeepNesting,         // 1500 levels of arrays, far over the depth limit, within the size limit
  kInvalidUtf8,         // a string with a byte that is not UTF-8
  kCount
};

// A payload of kind `kind` whose key field (if it has one) is unique to `n`.
// `amount_field` is the workload's name for the amount.
std::string HostilePayload(Hostile kind, int n, const std::string& amount_field);

// Two distinct integer ids above 2^64 that a double cannot tell apart: 25
// digits, differing only in the last one. `n` makes the pair unique in a run.
std::string BigIntegerId(int n, int which);

}  // namespace idem::sim
