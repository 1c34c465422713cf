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
#include "idem/store_dead_letters.h"
#include "service/control.h"

namespace idem::service {

class AbandoningSource final : public Source, public ParksInStore {
 public:
  AbandoningSource(Source* source, const Control* control) : source_(source), control_(control) {}

  Result<std::vector<Message>> Poll(size_t max_messages, int64_t max_wait_ms) override;
  Status Settle(const std::vector<Settlement>& settlements) override;
  Status Abandon() override { return source_->Abandon(); }
  // Forwarded: the worker's broker keeps what it cannot dead-letter in the store.
  void SetStoreDeadLetters(StoreDeadLetterSink* sink) override {
    if (auto* parks = dynamic_cast<ParksInStore*>(source_)) parks->SetStoreDeadLetters(sink);
  }

  // `clock` (may be null) gets Env::NowMs() when a poll hands out messages while it is 0.
  void SetInFlightClock(std::atomic<int64_t>* clock, Env* env) {
    clock_ = clock;
    env_ = env;
  }

  // Settlements given back rather than made since the abandon, for the log.
  size_t abandoned() const { return abandoned_; }

 private:
  Source* source_;
  const Control* control_;
  size_t abandoned_ = 0;
  std::atomic<int64_t>* clock_ = nullptr;
  Env* env_ = nullptr;
};

}  // namespace idem::service
