// The embedded durable queue: a single SQLite file, no server.
//
// At-least-once: a polled message is leased for `visibility_timeout_ms`; if it
// is not settled by then, it is handed out again with delivery_count + 1.
// Delayed delivery, the retry tier and the terminal (dead-letter) queue live in
// the same file. Several processes may publish to and consume from one file.
//
// Thread safety: an EmbeddedQueue is one SQLite connection (opened without
// SQLite's own mutex): use it, as Broker, Source, Publisher and DeadLetters,
// from one thread at a time. For more threads open one EmbeddedQueue each on
// the same file: they take turns on its write lock (busy_timeout_ms) as
// processes do, and a message leased to one is not handed to another.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "idem/broker.h"
#include "idem/env.h"
#include "idem/message.h"
#include "idem/status.h"

namespace idem {

struct EmbeddedQueueOptions {
  int64_t visibility_timeout_ms = 30'000;  // default 30 s, as RabbitMQ's consumer timeout in the incident
  int busy_timeout_ms = 10'000;            // wait for another process's write lock; default 10 s
  bool durable_against_power_loss = true;  // synchronous=FULL; default true
  std::vector<std::string> topics;         // Poll only these topics; default: all
  int64_t poll_interval_ms = 50;           // sleep between polls while waiting; default 50 ms
  // false: open an existing queue only, for inspecting it: a missing file is
  // NotFound (nothing is created) and the schema is never written, so a
  // mistyped path cannot leave an empty queue behind. Default true.
  bool create_if_missing = true;
};

// The queue is its own Source, Publisher and DeadLetters: source(), publisher()
// and dead_letters() return this object.
class EmbeddedQueue : public Broker, public Source, public Publisher, public DeadLetters {
 public:
  Source& source() override { return *this; }
  Publisher& publisher() override { return *this; }
  DeadLetters* dead_letters() override { return this; }

  // Opens the queue file, creating it if needed (unless !create_if_missing:
  // then NotFound when there is no file, InvalidArgument when it is not a queue).
  static Result<std::unique_ptr<EmbeddedQueue>> Open(const std::string& path,
                                                     const EmbeddedQueueOptions& options, Env* env);

  // Publishes one message, visible after `delay_ms`. Message::id is generated when empty.
  virtual Result<std::string> Publish(const Message& message, int64_t delay_ms = 0) = 0;
};

}  // namespace idem
