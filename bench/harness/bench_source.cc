#include "harness/bench_source.h"

#include <chrono>
#include <cstdlib>

namespace idem::bench {

BenchSource::BenchSource(PayStream* stream, int64_t limit, Env* env) : stream_(stream), limit_(limit), env_(env) {}
BenchSource::BenchSource(Env* env) : env_(env) {}

void BenchSource::Publish(Message m) {
  Pending p{std::move(m), env_->MonotonicMicros()};
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(p));
  }
  ready_.notify_one();
}

void BenchSource::Close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
  }
  ready_.notify_all();
}

bool BenchSource::Drained() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!queue_.empty()) return false;
  return stream_ ? stream_->messages() >= limit_ : closed_;
}

Result<std::vector<Message>> BenchSource::Poll(size_t max_messages, int64_t max_wait_ms) {
  std::vector<Message> out;
  std::unique_lock<std::mutex> lock(mu_);
  if (!stream_ && queue_.empty() && !closed_) {
    // The wait is the paced phase's linger; the condition variable wakes the
    // consumer the moment a message arrives, like a push-based broker client.
    ready_.wait_for(lock, std::chrono::milliseconds(max_wait_ms), [&] { return !queue_.empty() || closed_; });
  }
  const int64_t polled_at = env_->NowMs();
  while (out.size() < max_messages && !queue_.empty()) {
    Pending& p = queue_.front();
    // The receipt is ours to define: it carries the publish stamp to Settle.
    p.message.receipt = Receipt{p.published_us};
    p.message.received_at_ms = polled_at;
    out.push_back(std::move(p.message));
    queue_.pop_front();
  }
  lock.unlock();
  while (stream_ && out.size() < max_messages && stream_->messages() < limit_) {
    Message m = stream_->Next();
    m.receipt = Receipt{};  // no publish stamp: saturated runs measure throughput only
    m.received_at_ms = polled_at;
    out.push_back(std::move(m));
  }
  return out;
}

Status BenchSource::Settle(const std::vector<Settlement>& settlements) {
  const int64_t now_us = env_->MonotonicMicros();
  for (const Settlement& s : settlements) {
    switch (s.kind) {
      case Settlement::Kind::kAck: {
        counts_.acked++;
        const int64_t published_us = s.message->receipt.sequence;
        if (published_us > 0) latencies_us_.push_back(now_us - published_us);
        break;
      }
      case Settlement::Kind::kPark:
        counts_.parked++;
        break;
      case Settlement::Kind::kRetry:
      case Settlement::Kind::kRelease: {
        // At least once: it comes back. (A correct bench run never gets here;
        // the checks fail the run when it does.)
        (s.kind == Settlement::Kind::kRetry ? counts_.retried : counts_.released)++;
        Message again = *s.message;
        again.redelivered = true;
        again.delivery_count++;
        std::lock_guard<std::mutex> lock(mu_);
        queue_.push_back({std::move(again), 0});
        break;
      }
    }
  }
  return Status::OK();
}

}  // namespace idem::bench
