// Two workers claiming the same key at once on a server store (PostgreSQL,
// MySQL): the second claim must wait for the first worker's transaction and
// then report what it decided. Each backend's tests call these with two
// stores on one fresh database and a way to see the second one wait.
#pragma once

#include <functional>

#include "idem/store.h"

namespace idem::testing {

// True once the session of the second store waits for a row lock.
using WaitsForLock = std::function<bool()>;

// A has claimed and completed a new key without committing; B claims it and
// waits. A commits: B reports A's record. A rolls back: B's claim inserts.
void ExpectAWaitingClaimReportsTheOtherWorkersDecision(Store& a, Store& b, const WaitsForLock& b_waits);

// A released record is retried by A and B at once. A's claim locks it and A
// takes it over; B's claim waits and then sees A's outcome, never RELEASED
// (which would let both take it over and apply the effect twice).
void ExpectTwoWorkersRetryingOneReleasedKeyNeverBothTakeItOver(Store& a, Store& b, const WaitsForLock& b_waits);

}  // namespace idem::testing
