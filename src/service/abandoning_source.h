// AbandoningSource: the Source a worker's pipeline polls. It passes everything
// to the worker's broker source until Control::abandon is set; from then on a
// poll returns nothing and a settlement gives the batch back unsettled
// (Source::Abandon), so a forced stop never acks what it did not
// finish and the broker delivers those messages again at once. Effects that
// committed before the abandon come back as duplicates, which the guard absorbs.
// With an in-flight clock it also notes when it handed out messages, for
// idem_oldest_in_flight_age_seconds (the worker resets the clock once the batch
// is settled).
//
// Thread safety: used by its worker's thread only, like the source it wraps.
#pragma once

#include <atomic>
#include <cstdint>

#include "idem/env.h"
#include "idem/source.h"
#include "service/control.h"

namespace idem::service {

class AbandoningSource final : public ForwardingSource {
 public:
  AbandoningSource(Source* source, const Control* control) : ForwardingSource(source), control_(control) {}

  Result<std::vector<Message>> Poll(size_t max_messages, int64_t max_wait_ms) override;
  Status Settle(const std::vector<Settlement>& settlements) override;
  // Every capability passes through (ForwardingSource): the broker's acks in
  // the store's transaction commit only with the effects they acknowledge, so
  // even a forced stop never acks through them what it did not finish; what
  // the broker cannot dead-letter is kept in the store.

  // `clock` (may be null) gets Env::NowMs() when a poll hands out messages while it is 0.
  void SetInFlightClock(std::atomic<int64_t>* clock, Env* env) {
    clock_ = clock;
    env_ = env;
  }

  // Settlements given back rather than made since the abandon, for the log.
  size_t abandoned() const { return abandoned_; }

 private:
  const Control* control_;
  size_t abandoned_ = 0;
  std::atomic<int64_t>* clock_ = nullptr;
  Env* env_ = nullptr;
};

}  // namespace idem::service
