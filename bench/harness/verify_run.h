// After every run, before its numbers count: were the effects exactly once?
// A bench that measures a broken run is worse than none, so each check below
// must hold or the run is reported as failed and the command exits non-zero.
//
// From the database (whatever the consumer believes):
//   ledger     PAY_DEDUCT rows = history + unique payments, and no payment twice
//   orders     PAID orders = history + unique payments
//   points     one row per payment;   notices   one row per payment
//   balances   money taken from the accounts = the sum of the unique payments
//   records    (guarded variants) SUCCEEDED records of the run's group = history + unique
// From the run:
//   handler    the payments code ran exactly once per unique payment — so the
//              guard (not the handler's own business checks) stopped every copy
//   settled    every message acked: nothing parked, retried or released
//   decisions  (guarded) FIRST = unique, DUPLICATE = copies
#pragma once

#include <cstdint>
#include <string>

#include "harness/bench_source.h"
#include "harness/run_spec.h"
#include "idem/decision.h"
#include "idem/store.h"

namespace idem::bench {

struct RunFacts {
  int64_t history = 0;
  int64_t messages = 0;        // handed out by the source
  int64_t unique = 0;          // distinct payments among them
  int64_t unique_amount_cents = 0;
  bool guarded = true;         // idem and naive keep records; the ceiling does not
  std::string consumer_group;
  int64_t business_runs = 0;
  int64_t oracle_skips = 0;
  int64_t bank_debits = 0;
  SourceCounts settled;
  int64_t decided_first = 0, decided_duplicate = 0;
};

// Appends each check to result->checks_passed or result->check_failures.
void VerifyRun(Store& store, const RunFacts& facts, RunResult* result);
// The checks from the database alone (ledger, orders, points, notices,
// balances, records): for a consumer the bench cannot count from inside, such
// as an `idem run` process. Reads history, unique, unique_amount_cents,
// guarded and consumer_group of `facts`.
void VerifyEffects(Store& store, const RunFacts& facts, RunResult* result);

}  // namespace idem::bench
