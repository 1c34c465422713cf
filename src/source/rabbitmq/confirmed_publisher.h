// ConfirmedPublisher: publishes on channel 1 of a connection in confirm mode and
// reports success only once the broker has confirmed every message of a batch.
//
// Messages are mandatory: one that no queue would take (its queue was deleted)
// comes back with basic.return and fails the batch instead of vanishing. A
// basic.nack or a lost connection fails it too; a failed batch may have been
// partly stored, so sending it again can duplicate copies - never lose them -
// and the consumption records absorb the duplicates.
//
// Confirms that are merely slow (a memory or disk alarm blocks publishers, and
// RabbitMQ stops reading from them) are a different case: the messages are
// already in the broker's hands. PublishOrHold then keeps the batch outstanding
// on the live connection, and Resume() waits for it again later, so a long
// alarm does not turn into one more copy of every message per retry.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "idem/env.h"
#include "idem/status.h"
#include "source/rabbitmq/connection.h"
#include "source/rabbitmq/outgoing.h"

namespace idem::rabbitmq {

class ConfirmedPublisher {
 public:
  ConfirmedPublisher(AmqpConnection* conn, Env* env) : conn_(conn), env_(env) {}

  // Puts channel 1 in confirm mode. Call after every AmqpConnection::Open();
  // forgets any held batch (its fate on the old connection is unknown).
  Status Start();
  // Changes with every Start(): a batch held under an older generation is gone.
  uint64_t generation() const { return generation_; }

  // Publishes `batch` and waits (up to the rpc timeout) for its confirms. If
  // they do not come in time the connection is dropped, and the caller sends again.
  Status PublishAll(const std::vector<Outgoing*>& batch);
  // The same, except that a timeout holds the batch (holding() turns true) on
  // the live connection: the caller must Resume() instead of sending it again.
  Status PublishOrHold(const std::vector<Outgoing*>& batch);
  bool holding() const { return held_.has_value(); }
  // Waits again for the held batch: OK once all of it is confirmed; still
  // holding() after another timeout; any other error means "send it again".
  Status Resume();

  // How many messages came back unroutable in the last failed batch: the caller
  // re-declares its queues before trying again.
  int64_t last_returned() const { return last_returned_; }

 private:
  struct Outstanding {
    uint64_t first = 0, last = 0;
    std::vector<bool> settled;
    uint64_t open = 0, nacked = 0;
    int64_t returned = 0;
    std::string returned_to;
  };
  Status Publish(const std::vector<Outgoing*>& batch, bool hold);
  Status Await(Outstanding o, bool hold);

  AmqpConnection* conn_;
  Env* env_;
  uint64_t next_seq_ = 0;  // publish sequence number of the last message sent
  uint64_t generation_ = 0;
  int64_t last_returned_ = 0;
  std::optional<Outstanding> held_;
};

}  // namespace idem::rabbitmq
