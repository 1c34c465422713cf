// ConfirmedPublisher: publishes on channel 1 of a connection in confirm mode and
// returns only once the broker has confirmed every message of the batch.
//
// Messages are mandatory: one that no queue would take (its queue was deleted)
// comes back with basic.return and fails the batch instead of vanishing. A
// basic.nack, a timeout or a lost connection fail it too. A failed batch may have
// been partly stored, so retrying it can duplicate copies — never lose them; the
// consumption records absorb the duplicates.
#pragma once

#include <cstdint>
#include <vector>

#include "idem/env.h"
#include "idem/status.h"
#include "source/rabbitmq/connection.h"
#include "source/rabbitmq/outgoing.h"

namespace idem::rabbitmq {

class ConfirmedPublisher {
 public:
  ConfirmedPublisher(AmqpConnection* conn, Env* env) : conn_(conn), env_(env) {}

  // Puts channel 1 in confirm mode. Call after every AmqpConnection::Open().
  Status Start();

  // Publishes all of `batch` and waits (up to the rpc timeout) for the confirms.
  Status PublishAll(const std::vector<Outgoing*>& batch);

  // How many messages came back unroutable in the last failed batch: the caller
  // re-declares its queues before trying again.
  int64_t last_returned() const { return last_returned_; }

 private:
  Status AwaitConfirms(uint64_t first, uint64_t last);

  AmqpConnection* conn_;
  Env* env_;
  uint64_t next_seq_ = 0;  // publish sequence number of the last message sent
  int64_t last_returned_ = 0;
};

}  // namespace idem::rabbitmq
