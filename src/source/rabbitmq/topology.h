// The names and declarations of idem's RabbitMQ topology (documented in
// include/idem/rabbitmq.h). Every declaration is idempotent: durable, with the
// same arguments each time, so any process may declare on every connect.
#pragma once

#include <cstdint>
#include <string>

#include "idem/rabbitmq.h"
#include "idem/status.h"
#include "source/rabbitmq/connection.h"

namespace idem::rabbitmq {

struct QueueNames {
  std::string main;      // Q
  std::string exchange;  // topic exchange producers publish to (default Q)
  std::string dead;      // terminal queue (default Q.dead)
  std::string audit;     // Q.audit

  static QueueNames From(const RabbitMqOptions& options);
  // Retry rung: every pass counts as an attempt.
  std::string Wait(int64_t delay_ms) const { return main + ".wait." + std::to_string(delay_ms); }
  // Delay that is not an attempt (release, delayed publish).
  std::string Hold(int64_t delay_ms) const { return main + ".hold." + std::to_string(delay_ms); }
  bool IsWait(const std::string& queue) const { return queue.rfind(main + ".wait.", 0) == 0; }
};

// The 1-2-5 step (1 s, 2 s, 5 s, 10 s, …) at or above `delay_ms`: release delays
// are arbitrary (a lease's remainder), and one hold queue per value would pile up.
int64_t HoldStepMs(int64_t delay_ms);

// Declares exchange Q, queue Q (dead-lettering to Q.dead), the "#" binding and
// queue Q.dead, on channel 1.
Status DeclareCore(AmqpConnection& conn, const QueueNames& names);
// Checks with passive declares that queues Q and Q.dead exist, declaring nothing:
// NotFound (and channel 1 closed) when one does not.
Status CheckCoreExists(AmqpConnection& conn, const QueueNames& names);
// Declares a wait or hold queue whose messages return to Q after `ttl_ms`.
Status DeclareDelayQueue(AmqpConnection& conn, const QueueNames& names, const std::string& queue, int64_t ttl_ms);
Status DeclareAuditQueue(AmqpConnection& conn, const QueueNames& names);

// Ready messages in `queue` (a passive declare on `channel`), or NotFound. A
// NotFound closes the channel; the caller reopens it.
Result<int64_t> ReadyCount(AmqpConnection& conn, amqp_channel_t channel, const std::string& queue);

}  // namespace idem::rabbitmq
