#include "testing/consumer_group.h"

#include <chrono>

namespace idem::testing {

ConsumerGroup::ConsumerGroup(int n, const std::function<ConsumerParts(int)>& make) {
  parts_.reserve(n);
  for (int i = 0; i < n; ++i) parts_.push_back(make(i));
  for (ConsumerParts& p : parts_) {
    Pipeline* pipeline = p.pipeline.get();
    threads_.emplace_back([this, pipeline] {
      while (!stop_.load()) pipeline->RunOnce();
    });
  }
}

ConsumerGroup::~ConsumerGroup() { Stop(); }

void ConsumerGroup::Stop() {
  stop_ = true;
  for (std::thread& t : threads_)
    if (t.joinable()) t.join();
}

int64_t ConsumerGroup::Sum(std::atomic<int64_t> DecisionCounters::*field) const {
  int64_t sum = 0;
  for (const ConsumerParts& p : parts_) sum += (p.pipeline->counters().*field).load();
  return sum;
}

HandlerSpec GatedHandler(HandlerSpec spec, const std::string& key, Gate* gate) {
  spec.fn = [inner = spec.fn, key, gate](HandlerContext& ctx) {
    if (ctx.idempotency_key == key && !gate->open) {
      gate->entered = true;
      WaitFor([gate] { return gate->open.load(); }, 60'000);
    }
    return inner(ctx);
  };
  return spec;
}

bool WaitFor(const std::function<bool()>& done, int64_t timeout_ms) {
  // Test-only polling of a condition with a deadline; real waiting code goes through Env.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

bool QueueSettled(EmbeddedQueue& queue) {
  auto s = queue.Stats();
  return s.ok() && s->ready == 0 && s->delayed == 0 && s->in_flight == 0;
}

}  // namespace idem::testing
