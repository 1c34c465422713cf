// The handler every variant runs: the payments service's own pay.success
// handler (order WAIT_PAY→PAID, ledger, balance, bank confirm, points, notice),
// wrapped to count how often the business code really ran — the strongest
// check that the guard kept every copy away from it.
//
// For the ceiling variant the wrapper is also the oracle: it skips the copies
// the stream marked (kCopyHeader), so the same unique effects are written in the
// same batches with no consumption records and no claims at all.
#pragma once

#include <cstdint>

#include "idem/handler.h"
#include "payments/downstream.h"

namespace idem::bench {

struct HandlerTally {
  int64_t business_runs = 0;  // the payments handler ran (successfully or not)
  int64_t oracle_skips = 0;   // ceiling only: copies skipped without touching the database
};

// The bank and notice service, answering at once. It counts calls and keeps no
// per-key state (SimulatedDownstream remembers every key, which would make a
// ten-million-message memory profile measure the stand-in instead of idem).
class CountingDownstream final : public payments::Downstream {
 public:
  Status ConfirmDebit(const std::string&, const std::string&, int64_t) override {
    ++debits;
    return Status::OK();
  }
  Status SendNotice(const payments::Notice&) override {
    ++notices;
    return Status::OK();
  }
  int64_t debits = 0, notices = 0;
};

// `tally` and `downstream` must outlive the returned handler.
HandlerSpec BenchPayHandler(payments::Downstream* downstream, bool skip_marked_copies, HandlerTally* tally);

}  // namespace idem::bench
