// AbandoningSource: the Source a worker's pipeline polls. It passes everything
// to the worker's broker until Control::abandon is set; from then on a poll
// returns nothing and a settlement gives the batch back unsettled
// (Broker::AbandonDeliveries), so a forced stop never acks what it did not
// finish and the broker delivers those messages again at once. Effects that
// committed before the abandon come back as duplicates, which the guard absorbs.
//
// Thread safety: used by its worker's thread only, like the broker it wraps.
#pragma once

#include "idem/broker.h"
#include "service/control.h"

namespace idem::service {

class AbandoningSource final : public Source {
 public:
  AbandoningSource(Broker* broker, const Control* control) : broker_(broker), control_(control) {}

  Result<std::vector<Message>> Poll(size_t max_messages, int64_t max_wait_ms) override;
  Status Settle(const std::vector<Settlement>& settlements) override;

  // Gives back whatever the broker still holds for this worker.
  Status AbandonNow();
  // Settlements given back rather than made since the abandon, for the log.
  size_t abandoned() const { return abandoned_; }

 private:
  Broker* broker_;
  const Control* control_;
  size_t abandoned_ = 0;
};

}  // namespace idem::service
