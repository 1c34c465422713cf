// Replay and purge of dead letters, audited: the one code path behind the
// browser console and `idem dlq replay/purge`, so both write the same rows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "console/audit_log.h"
#include "console/identity.h"
#include "idem/dead_letters.h"
#include "idem/env.h"

namespace idem::console {

enum class DeadLetterAction { kReplay, kPurge };
const char* ActionName(DeadLetterAction action);  // "replay", "purge"

struct ChangeRequest {
  DeadLetterAction action = DeadLetterAction::kReplay;
  std::vector<int64_t> ids;  // empty: every dead letter
  std::string broker;        // the broker URL as the audit shows it (redacted)
};

// The outcome an audit row records when an id named no dead letter.
constexpr const char* kOutcomeNotFound = "not_found";

// Writes the "started" audit row, replays or purges through `dead`, and records
// the outcome. Every id named must be a dead letter: when one is not, nothing
// is changed, the row's outcome is kOutcomeNotFound, and NotFound names the
// missing ids. A replay first reads the dead letters it sends back and writes a
// replay grant for each with the audit row (store/replay_grants.h): without
// one, a copy whose record says FAILED would only be parked again. "All" is
// the dead letters listed then, and exactly those are replayed. Refuses a read-only identity (nothing is written or changed).
// Returns how many dead letters moved or were deleted. When the broker fails,
// the row holds its error; when the audit row cannot be written, nothing is
// changed.
Result<int64_t> ApplyAudited(DeadLetters& dead, AuditLog& audit, const Identity& who, const ChangeRequest& change,
                             Env* env);

// "3,7,9", or "all" for an empty list.
std::string IdList(const std::vector<int64_t>& ids);

}  // namespace idem::console
