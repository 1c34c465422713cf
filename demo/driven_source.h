// DrivenSource: the idem consumer's view of the real embedded queue, with the
// fault plan applied at the broker boundary. Every message still comes from and
// goes back to the real queue; a fault only withholds the ack (crash,
// revocation) or delays processing (stall), as the real failure would.
#pragma once

#include "idem/source.h"
#include "demo/consumer.h"
#include "demo/faults.h"

namespace idem::demo {

class DrivenSource final : public ForwardingSource {
 public:
  // `queue`: the embedded queue's Source, not owned.
  DrivenSource(Source* queue, size_t consumer, FaultInjector* faults, DeliveryLog* log)
      : ForwardingSource(queue), consumer_(consumer), faults_(faults), log_(log) {}

  Result<std::vector<Message>> Poll(size_t max_messages, int64_t max_wait_ms) override;
  // Forwards, unless the consumer "died" or was revoked during this batch:
  // then the settlements are lost and the leases run out in the queue.
  Status Settle(const std::vector<Settlement>& settlements) override;
  // Not offered: acks written in the store's transaction would bypass the
  // faults that withhold them here.
  SettlesInStoreTransaction* settles_in_store_transaction() override { return nullptr; }

 private:
  size_t consumer_;
  FaultInjector* faults_;
  DeliveryLog* log_;
  bool lose_settlements_ = false;
};

}  // namespace idem::demo
