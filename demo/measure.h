// Measures a finished run from what it left behind: the ledger, balances,
// order states, stock, points and notices in the store, and the terminal queue
// of the broker — never from the consumers' own counters. The workload's
// oracle says what a correct run ends with.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "idem/broker.h"
#include "idem/store.h"
#include "demo/workload.h"

namespace idem::demo {

struct Damage {
  int64_t effects_expected = 0;    // rows a correct run writes (ledger, points, stock moves, notices)
  int64_t effects_applied = 0;     // rows found
  int64_t double_charges = 0;      // payments with more than one PAY_DEDUCT ledger row
  int64_t duplicate_effects = 0;   // rows beyond the first for any (biz_no, type), (payment, scene), order move, notice
  int64_t wrong_balances = 0;      // accounts whose balance is not what the legitimate events make it
  int64_t unbalanced_accounts = 0; // accounts whose balance != opening + sum of their ledger rows
  int64_t regressed_states = 0;    // orders whose state is behind where their events lead (moved back, or stuck)
  int64_t wrong_states = 0;        // orders not in their expected final state (regressed ones included)
  int64_t wrong_stock = 0;         // skus whose quantity is not the expected one
  int64_t blocked = 0;             // legitimate events whose effect row is missing
  int64_t parked = 0;              // messages in the terminal queue
  int64_t parked_as_expected = 0;  // events that had to be refused, found there with their reason
  int64_t parked_wrongly = 0;      // terminal-queue messages that should have been applied
  int64_t refusals_missing = 0;    // events that had to be refused but are not in the terminal queue
  int64_t left_in_queue = 0;       // ready, delayed or in flight when the run ended
  int64_t ignored_by_state = 0;    // idem records acknowledged as stale or already-there by the state machine

  // No damage of any kind, nothing blocked, nothing left behind.
  bool Clean() const;
};

Result<Damage> Measure(Store& store, Broker& queue, const Workload& workload);

// When each PAY_DEDUCT ledger row of `payment_id` was written (ms), oldest first.
Result<std::vector<int64_t>> ChargeTimes(Store& store, const std::string& payment_id);

}  // namespace idem::demo
