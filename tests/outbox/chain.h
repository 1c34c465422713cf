// The outbox chain, end to end, on any store and broker: pay → outbox →
// broker → points and notice consumers behind idem, with two SIGKILLs at
// deterministic points — the relay right after the broker's confirm and
// before it marks the rows sent, and the downstream consumer right after its
// commit and before its ack. Each runs in a child process that kills itself
// at that point (a hook in its publisher or source), never on a timer.
// Afterwards every payment must have exactly one points grant and one notice,
// counted with SQL.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "idem/broker.h"
#include "idem/handler.h"
#include "idem/store.h"
#include "testing/test_util.h"

namespace idem::testing {

struct ChainEnds {
  // Each call opens new connections (the children open their own).
  std::function<Result<std::unique_ptr<Store>>(Env*)> open_store;
  std::function<Result<std::unique_ptr<Broker>>(Env*)> open_pay_broker;         // the "pay" topic
  std::function<Result<std::unique_ptr<Broker>>(Env*)> open_downstream_broker;  // points.grant, notice.send
  // How far the clock moves before the killed consumer's deliveries come back:
  // the visibility timeout on the embedded queue; 0 where the broker gives them
  // back when the connection drops (RabbitMQ, Kafka).
  int64_t redelivery_after_ms = 0;
  // Kafka: the brokers and consumers run on the real clock (joining a group
  // takes real seconds) and each poll waits this long; the relays keep a
  // simulated clock of their own, ahead of the real one, so the claim window
  // passes without waiting. Elsewhere everything runs on the simulated clock.
  bool real_time = false;
  int64_t poll_wait_ms = 0;
  // The "pay" handler's tables and the handler (MySQL spells them its own way).
};

// Runs the chain for `payments` payments with gtest assertions.
void RunOutboxChain(const ChainEnds& ends, int payments);

}  // namespace idem::testing
