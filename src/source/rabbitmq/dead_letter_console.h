// DeadLetterConsole: list, show, replay and purge the terminal queue Q.dead.
//
// The terminal queue is read with basic.get (no auto-ack) on a channel of its
// own. Replayed and purged dead letters are acked there only after their replay
// copy and audit record are confirmed; everything else stays unacked until the
// channel closes, when RabbitMQ requeues it in its original position. So a
// console call never loses or reorders a dead letter, even if it dies midway.
// Trade-off: one call reads at most RabbitMqOptions::dead_scan_limit messages,
// and meanwhile those are invisible to other readers of Q.dead.
//
// Audit: every replay or purge publishes a JSON record to Q.audit (confirmed,
// before the dead letter is acked), and a replayed copy carries x-idem-replay =
// the actor and x-idem-replayed-at-ms.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "idem/broker.h"
#include "idem/env.h"
#include "source/rabbitmq/confirmed_publisher.h"
#include "source/rabbitmq/connection.h"
#include "source/rabbitmq/topology.h"

namespace idem::rabbitmq {

class DeadLetterConsole {
 public:
  // `conn` must be open with `publisher` started on its channel 1.
  DeadLetterConsole(AmqpConnection* conn, ConfirmedPublisher* publisher, const QueueNames& names, Env* env)
      : conn_(conn), publisher_(publisher), names_(names), env_(env) {}

  Result<std::vector<DeadLetter>> List(size_t limit, int64_t after_id);
  Result<std::optional<DeadLetter>> Get(int64_t id);
  Result<int64_t> Replay(const std::vector<int64_t>& ids, const std::string& actor);
  Result<int64_t> Purge(const std::vector<int64_t>& ids, const std::string& actor);
  // When the message at the head of Q.dead (the oldest) last failed; 0 if empty.
  Result<int64_t> OldestFailedMs();

 private:
  enum class Action { kKeep, kReplay, kPurge, kStop };
  using Decide = std::function<Action(const DeadLetter&)>;
  // Reads Q.dead from the head, asking `decide` about each dead letter. Returns
  // how many were replayed or purged.
  Result<int64_t> Scan(const Decide& decide, const std::string& actor, const char* what);

  AmqpConnection* conn_;
  ConfirmedPublisher* publisher_;
  QueueNames names_;
  Env* env_;
};

}  // namespace idem::rabbitmq
