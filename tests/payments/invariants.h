// The invariants of the payments service, read straight from a run's store and
// queue files with SQL — independent of the demo's Measure(), so a bug there
// cannot hide a bug here. Each check returns what it found wrong, one line per
// violation; empty means it holds.
#pragma once

#include <string>
#include <vector>

#include "demo/workload.h"

namespace idem::demo::testing {

struct Violations {
  std::vector<std::string> ledger_duplicates;   // (biz_no, type) more than once
  std::vector<std::string> unbalanced;          // balance != opening + sum of flows
  std::vector<std::string> wrong_balance;       // balance != what the legitimate events make it
  std::vector<std::string> regressed;           // order not in the state its events lead to
  std::vector<std::string> not_applied_once;    // a legitimate event with 0 or 2+ effect rows
  std::vector<std::string> refusal_missing;     // an illegal event not in the terminal queue with its reason
  std::vector<std::string> parked_wrongly;      // a terminal-queue message that should have been applied
  std::vector<std::string> left_in_queue;       // messages still ready, delayed or in flight

  bool empty() const;
  std::string Summary() const;  // counts and the first few lines of each, for a failure message
};

// Reads `dir`/store.db and the terminal queue after a run of `w`: `dir`/queue.db,
// or the broker at `broker_url` (RunReport::broker_queue of a run on a broker).
Violations CheckInvariants(const std::string& dir, const Workload& w, const std::string& broker_url = "");

// How many legitimate repeat payments (same user, sku and amount as an earlier
// order, new payment id) were charged exactly once. -1 if one of them was not.
int RepeatPaymentsCharged(const std::string& dir, const Workload& w);

// The runs' folder layout: RunOptions::dir.
std::string StorePath(const std::string& dir);
std::string QueuePath(const std::string& dir);

}  // namespace idem::demo::testing
