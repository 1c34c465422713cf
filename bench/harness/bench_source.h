// BenchSource: the in-memory Source every variant of a comparison consumes from.
//
// Why in memory and not the embedded queue: the comparison is about the
// consumer — its transactions, claims and fsyncs. A queue file would add its
// own poll and settle transactions (and fsyncs) to every variant, the same
// cost in numerator and denominator, which hides the consumer's overhead
// instead of measuring it. This source costs a few hundred nanoseconds per message.
//
// Two ways to feed it:
//   saturated  Poll takes the next messages straight from the PayStream, up to
//              `limit`: there is always a backlog, so throughput is the consumer's.
//   paced      a producer thread calls Publish at a fixed rate; Poll waits for
//              it. Each message is stamped at Publish, and its publish→settle time
//              (settle comes right after the commit) is recorded.
//
// It keeps at-least-once semantics: a released or retried message is handed out
// again. Acked, parked, retried and released messages are counted for the checks.
// Thread safety: Publish may be called from one other thread; the rest belongs
// to the pipeline's thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

#include "harness/pay_stream.h"
#include "idem/env.h"
#include "idem/source.h"

namespace idem::bench {

struct SourceCounts {
  int64_t acked = 0, parked = 0, retried = 0, released = 0;
};

class BenchSource final : public Source {
 public:
  // Saturated: hands out at most `limit` messages of `stream`.
  BenchSource(PayStream* stream, int64_t limit, Env* env);
  // Paced: hands out what Publish enqueued.
  explicit BenchSource(Env* env);

  // Paced mode, producer thread: stamps the message and enqueues it.
  void Publish(Message m);
  // Paced mode: the producer is done; Poll stops waiting once the queue is empty.
  void Close();

  Result<std::vector<Message>> Poll(size_t max_messages, int64_t max_wait_ms) override;
  Status Settle(const std::vector<Settlement>& settlements) override;
  // The bench keeps no record of what it handed out, so it cannot take it back;
  // no bench run abandons.
  Status Abandon() override {
    return Status::NotSupported("the bench source cannot take deliveries back (no bench run abandons)");
  }

  // Nothing left to hand out and nothing waiting to come back.
  bool Drained();
  SourceCounts counts() const { return counts_; }
  // Publish→settle times of acked messages, microseconds (paced mode).
  const std::vector<int64_t>& latencies_us() const { return latencies_us_; }

 private:
  struct Pending {
    Message message;
    int64_t published_us = 0;
  };

  PayStream* stream_ = nullptr;
  int64_t limit_ = 0;
  Env* env_;
  std::mutex mu_;
  std::condition_variable ready_;
  std::deque<Pending> queue_;  // paced messages, and released ones to hand out again
  bool closed_ = false;
  uint64_t next_receipt_ = 1;
  SourceCounts counts_;
  std::vector<int64_t> latencies_us_;
};

}  // namespace idem::bench
