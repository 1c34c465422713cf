// The RabbitMQ broker adapter, built on rabbitmq-c.
//
// URL:  amqp://USER:PASSWORD@HOST:PORT/VHOST?queue=NAME&prefetch=N&...
//       (vhost "%2f" is "/"; every RabbitMqOptions field below can be given as a
//       query parameter of the same name, e.g. ?queue=payments&prefetch=50)
//
// Topology, declared by idem on every (re)connect, idempotently (durable, and
// with the same arguments each time). With queue=Q:
//
//   exchange Q (topic)    producers publish here; routing key = Message::topic.
//                         Bound to queue Q with "#": the queue gets every topic.
//   queue Q               the main queue. Consumed with manual acks and basic.qos
//                         prefetch. Its dead-letter exchange ("" → Q.dead) catches
//                         anything the broker itself dead-letters (a client's
//                         basic.nack/reject with requeue=false, a TTL or length
//                         limit set by policy), so nothing is dropped silently.
//   queue Q.wait.<ms>     one per retry delay (the rung delays of the pipeline's
//                         RetryPolicy), declared on first use: x-message-ttl=<ms>,
//                         dead-lettered back to Q when the TTL runs out.
//   queue Q.hold.<ms>     the same for delays that are not attempts: a kRelease of
//                         at least release_min_delay_ms (rounded up to 1-2-5 steps:
//                         1 s, 2 s, 5 s, 10 s…; a shorter one is a plain
//                         basic.nack with requeue) and PublishBatch(…, delay_ms).
//   queue Q.dead          the terminal queue: a parked message with its reason,
//                         attempts and failure times in x-idem-* headers.
//   queue Q.audit         one JSON message per dead letter replayed or purged:
//                         {"at_ms","actor","action","dead_id","message_id","topic","reason"}.
//
// Headers idem reads and writes (the topic and the business key travel in headers
// because moves between queues go through the default exchange, whose routing key
// is the queue name):
//   idem-key              Message::key, whole (x-idem-key, its old name, is read too)
//   x-idem-topic          the topic of a moved message (else the routing key is the topic)
//   x-idem-attempt        the consumption record's attempt count at the last retry
//                         or park (Settlement::attempts), shown with a dead letter
//                         (cross-checked with the broker's x-death passes through
//                         the wait queues); idem never reads it back as a count
//   x-idem-published-ms   Message::published_at_ms
//   x-idem-reason, x-idem-first-failed-ms, x-idem-last-failed-ms, x-idem-dead-id
//                         terminal-queue bookkeeping
//   x-idem-replay         the actor, on a message replayed from Q.dead (kReplayHeader)
// idem's copies carry the AMQP user-id of the user it logs in as; on any other
// delivery the x-idem-* headers but x-idem-key, x-idem-published-ms and
// x-idem-outbox-id are renamed x-producer-x-idem-* and never read
// (docs/hostile-input.md).
//
// Guarantees:
//   - Every message idem publishes (PublishBatch, retry/hold/terminal moves,
//     replays, audit records) is persistent, mandatory and confirmed by the
//     broker (publisher confirms) before the call returns or the original is acked.
//     A move that cannot be confirmed is retried by the adapter on later calls;
//     the original stays unacknowledged (safe in the broker) until it is. While
//     an alarm blocks publishers, the unconfirmed move is awaited, not sent again.
//     (idem's own moves do not use basic.nack(requeue=false): the dead-lettering
//     it triggers cannot carry the reason, and for classic queues it is not
//     confirmed, i.e. at most once. Publish, confirm, then ack is at least once.)
//   - A delivery is acked only in Settle, i.e. after the pipeline's transaction
//     outcome is known. Contiguous acks are sent as one multiple-ack.
//   - Receipts carry the connection generation: after a reconnect, a stale
//     delivery tag is never acked on the new channel; the broker has already put
//     the message back and the guard absorbs the redelivered copy.
//   - Abandon closes the consuming connection: RabbitMQ requeues every
//     unacked delivery (redelivered=true), the next Poll reconnects, and a late
//     Settle of an abandoned receipt does nothing.
//   - Connections are re-established on the next call after a broker restart or
//     a network failure; errors meanwhile are retryable (Status::Unavailable).
//   - rabbitmq-c answers heartbeats only inside calls: keep one batch's work
//     shorter than two heartbeats (60 s by default), or the broker drops the
//     consuming connection and delivers the batch again (the guard absorbs it).
//
// Dead-letter console (DeadLetters: List/Get/Replay/Purge): the terminal
// queue is read with basic.get on a short-lived channel without acking; what is
// not replayed or purged is requeued when that channel closes, and RabbitMQ puts
// requeued messages back in their original positions, so the console never loses
// or reorders dead letters. The trade-off: while a console call runs, the dead
// letters it has read are invisible to other readers of Q.dead, and one call reads
// at most `dead_scan_limit` of them. Dead-letter ids are int64 values stamped in
// x-idem-dead-id when idem parks a message (time-ordered: Unix milliseconds in
// the high bits, so they are long); a message the broker dead-lettered by itself
// gets an id derived from its x-death time and message id, stable while it
// sits there.
//
// Limits: BrokerOptions::topics is refused (a RabbitMQ queue receives every
// topic of its exchange; use one queue per set of topics). Stats cannot tell how
// many messages are in flight (-1), and counts delayed messages only in the wait
// and hold queues this process knows (declared, default ladder, 1-2-5 steps).
// amqps:// (TLS) is not built in.
//
// The Broker is its own Source, Publisher and DeadLetters (they share its
// connections). Thread safety: one broker per thread (it owns two connections:
// one consuming, one publishing and running the console).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "idem/broker.h"
#include "idem/env.h"
#include "idem/status.h"

namespace idem {

struct RabbitMqOptions {
  std::string host = "127.0.0.1";
  int port = 5672;
  std::string vhost = "/";
  std::string user = "guest";
  std::string password = "guest";

  std::string queue = "idem";  // main queue name Q; the other names derive from it (see above)
  std::string exchange;        // default: same as queue
  std::string dead_queue;      // default: Q + ".dead"

  // basic.qos prefetch count, 1 to 65535. Default 100 for these options as
  // given to OpenRabbitMqBroker(options, env); through a URL (OpenBroker), the
  // URL's prefetch= or else BrokerOptions::prefetch (default 300) replaces it.
  size_t prefetch = 100;
  int heartbeat_s = 30;                  // AMQP heartbeat; 0 disables; default 30 s
  int64_t connect_timeout_ms = 5'000;    // TCP connect + login; default 5 s
  int64_t rpc_timeout_ms = 30'000;       // any broker round trip, confirms included; default 30 s
  int64_t release_min_delay_ms = 1'000;  // kRelease shorter than this is a plain requeue; default 1 s
  size_t dead_scan_limit = 10'000;       // most dead letters one console call reads; default 10 000
  // The largest message body idem moves to a wait, hold or dead-letter queue:
  // set it to the broker's max_message_size when that is lower. A dead letter
  // whose body is larger is kept in the store (idem_dead_letters) instead.
  // Default 128 MiB, RabbitMQ's own default.
  size_t max_message_bytes = 128u << 20;
  // false: declare nothing, only check with passive declares that queues Q and
  // Q.dead exist (NotFound if not): for inspecting (stats, the console), so a
  // mistyped queue= never creates queues. Default true. Set from
  // BrokerOptions::create_if_missing; not a URL parameter.
  bool create_if_missing = true;
  // Wait queues Stats probes besides those this process declared; default the
  // RetryPolicy default ladder (30 s, 1 min, 5 min).
  std::vector<int64_t> known_wait_ms{30'000, 60'000, 300'000};
};

// Parses an amqp:// URL (see the top of this file). Unknown query parameters are
// an error, so a typo never silently falls back to a default.
Result<RabbitMqOptions> ParseAmqpUrl(const std::string& url);

// Connects the publishing connection and declares the topology (the consuming
// connection opens on the first Poll) and returns the broker.
Result<std::unique_ptr<Broker>> OpenRabbitMqBroker(const RabbitMqOptions& options, Env* env);

// OpenBroker's entry point for amqp:// URLs. BrokerOptions::prefetch applies
// unless the URL sets prefetch=; BrokerOptions::topics must be empty.
Result<std::unique_ptr<Broker>> OpenRabbitMqBroker(const std::string& url, const BrokerOptions& broker_options,
                                                   Env* env);

}  // namespace idem
