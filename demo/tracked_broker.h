// TrackedBroker: one consumer's connection to the real broker in a run on a
// broker (broker_run.cc). It forwards everything, and on the way
//   - converts the scenario clock's durations to real time: Poll waits and the
//     delays of retries and releases (a 30 s rung is 30 s / speedup in the broker),
//     and stamps received_at_ms on the scenario clock;
//   - keeps the run's count of finished copies: a copy is finished when a
//     consumer's ack or park of it reached the broker; a retry or a release keeps
//     it alive, and so does anything given back. The run is drained when every
//     published copy is finished, which needs no guess about what the broker
//     still holds where nobody can see it (prefetch buffers, TTL queues);
//   - gives back, like a consumer that died, what its consumer polled and did not
//     settle (Abandon); those copies are not counted when settled late.
// It is its own Source and Publisher; the dead-letter console is the inner broker's.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "idem/broker.h"
#include "demo/scaled_clock.h"

namespace idem::demo {

// Copies a run published and copies that are finished (acked or parked).
struct CopyCount {
  int64_t published = 0;
  int64_t finished = 0;
  int64_t outstanding() const { return published - finished; }
};

class TrackedBroker final : public Broker, public Source, public Publisher {
 public:
  TrackedBroker(std::unique_ptr<Broker> inner, ScaledClock* clock, CopyCount* count)
      : inner_(std::move(inner)), clock_(clock), count_(count) {}

  // Real milliseconds every Poll waits at least for a first message; the driver
  // raises it while the run is idle (a poll interval) and sets it to 0 otherwise.
  void set_min_wait_ms(int64_t ms) { min_wait_ms_ = ms; }
  // Deliveries polled and not settled yet (non-zero after a step means the
  // consumer died or lost its session with them).
  size_t held() const { return held_.size(); }
  // The broker it wraps (for what only that broker can tell, e.g. KafkaHeldPartitions).
  Broker& inner() { return *inner_; }

  Source& source() override { return *this; }
  Publisher& publisher() override { return *this; }
  DeadLetters* dead_letters() override { return inner_->dead_letters(); }
  Result<QueueStats> Stats() override { return inner_->Stats(); }

  Result<std::vector<Message>> Poll(size_t max_messages, int64_t max_wait_ms) override;
  Status Settle(const std::vector<Settlement>& settlements) override;
  Status Abandon() override;
  // Parks into the store still pass through Settle, where they are counted;
  // acks in the store's transaction would not, so that one is not offered.
  ParksInStore* parks_in_store() override { return inner_->source().parks_in_store(); }

  Status PublishBatch(std::vector<Message>& messages, int64_t delay_ms) override {
    return inner_->publisher().PublishBatch(messages, clock_->ToRealMs(delay_ms));
  }

 private:
  std::unique_ptr<Broker> inner_;
  ScaledClock* clock_;
  CopyCount* count_;
  int64_t min_wait_ms_ = 0;
  std::set<Receipt> held_;       // receipts polled, not settled
  std::set<Receipt> given_up_;   // receipts given back by Abandon
};

}  // namespace idem::demo
