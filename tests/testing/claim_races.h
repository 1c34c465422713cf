// Two workers claiming the same key at once on a server store (PostgreSQL,
// MySQL): the second claim must wait for the first worker's transaction and
// then report what it decided. Each backend's tests call these with two
// stores on one fresh database and a way to see the second one wait.
#pragma once

#include <functional>
#include <memory>
#include <string>

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

// The server session behind a store's connection (asked before the stores are
// busy), and whether session `waiter` waits for a lock on a row of `table`
// that session `holder` holds (a backend may tell by either).
using SessionOf = std::function<int64_t(Store&)>;
using WaitsFor = std::function<bool(int64_t waiter, const std::string& table, int64_t holder)>;

// Two batches B and C (message orders opposite) each claim a key of their own,
// then one key R, then another of their own; R has no record when their claims
// start, and a third batch A inserts it, completes it and commits while both
// claims wait for A's row. Both then find R finished by A and commit, without
// a deadlock: the claims lock the keys they share in one order, and a finished
// record that two batches both found needs no exclusive lock.
// `gate_trigger_sql` (run once on `open()`'s database) creates the table
// claim_gates (n INT PRIMARY KEY) with the row 1 and a BEFORE INSERT trigger on
// idem_records that reads row 1 of it in share mode when NEW.message_id is
// 'gate-1': a claim holds there while another session holds that row, after
// it has looked for existing records and before it inserts.
void ExpectTwoBatchesMeetingAKeyFinishedMidClaimBothCommit(const std::function<std::unique_ptr<Store>()>& open,
                                                          const std::string& gate_trigger_sql,
                                                          const SessionOf& session_of, const WaitsFor& waits_for);

}  // namespace idem::testing
