// The embedded durable queue (SPEC R-G1): a single SQLite file, no server.
//
// At-least-once: a polled message is leased for `visibility_timeout_ms`; if it
// is not settled by then, it is handed out again with delivery_count + 1.
// Delayed delivery, the retry tier and the terminal (dead-letter) queue live in
// the same file. Several processes may publish to and consume from one file.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "idem/env.h"
#include "idem/message.h"
#include "idem/source.h"
#include "idem/status.h"

namespace idem {

struct EmbeddedQueueOptions {
  int64_t visibility_timeout_ms = 30'000;  // default 30 s, as RabbitMQ's consumer timeout in the incident
  int busy_timeout_ms = 10'000;            // wait for another process's write lock; default 10 s
  bool durable_against_power_loss = true;  // synchronous=FULL; default true
  std::vector<std::string> topics;         // Poll only these topics; default: all
  int64_t poll_interval_ms = 50;           // sleep between polls while waiting; default 50 ms
};

// One message in the terminal queue.
struct DeadLetter {
  int64_t id = 0;
  Message message;
  std::string reason;
  int attempts = 0;
  int64_t first_failed_ms = 0;
  int64_t last_failed_ms = 0;
};

struct QueueStats {
  int64_t ready = 0;     // deliverable now
  int64_t delayed = 0;   // waiting for a retry delay or delayed publish
  int64_t in_flight = 0; // leased to a consumer
  int64_t dead = 0;      // in the terminal queue
  int64_t oldest_dead_ms = 0;  // when the oldest parked message failed last (0 if none)
};

class EmbeddedQueue : public Source {
 public:
  // Opens (creating if needed) the queue file.
  static Result<std::unique_ptr<EmbeddedQueue>> Open(const std::string& path,
                                                     const EmbeddedQueueOptions& options, Env* env);

  // Publishes a message, visible after `delay_ms`. Message::id is generated when empty.
  virtual Result<std::string> Publish(const Message& message, int64_t delay_ms = 0) = 0;
  // Publishes many in one transaction, all visible after `delay_ms`. Fills in
  // generated message ids.
  virtual Status PublishBatch(std::vector<Message>& messages, int64_t delay_ms = 0) = 0;
  // Puts a message straight into the terminal queue (rejected at publish time).
  virtual Result<int64_t> ParkRejected(const Message& message, const std::string& reason) = 0;

  virtual Result<QueueStats> Stats() = 0;

  // Terminal-queue operations (the dlq sub-commands).
  virtual Result<std::vector<DeadLetter>> ListDead(size_t limit, int64_t after_id = 0) = 0;
  virtual Result<std::optional<DeadLetter>> GetDead(int64_t id) = 0;
  // Moves dead letters back to the main queue with the replay header set, so they
  // pass through every guard again. Records who did it. Returns how many moved.
  virtual Result<int64_t> ReplayDead(const std::vector<int64_t>& ids, const std::string& actor) = 0;
  // Deletes dead letters for good (all when `ids` is empty). Records who did it.
  virtual Result<int64_t> PurgeDead(const std::vector<int64_t>& ids, const std::string& actor) = 0;
};

}  // namespace idem
