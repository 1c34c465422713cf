// Several consumers on their own threads, each with its own queue handle,
// store connection, optional fast filter and pipeline — the shape of a real
// deployment with several worker processes — plus bounded waiting.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "idem/embedded_queue.h"
#include "idem/fast_filter.h"
#include "idem/handler.h"
#include "idem/pipeline.h"
#include "idem/store.h"

namespace idem::testing {

// One consumer's parts. The pipeline uses the others, so it is declared last
// (members are destroyed in reverse order).
struct ConsumerParts {
  std::unique_ptr<EmbeddedQueue> queue;
  std::unique_ptr<Store> store;
  std::unique_ptr<FastFilter> filter;
  std::unique_ptr<Pipeline> pipeline;
};

class ConsumerGroup {
 public:
  // Builds `n` consumers with `make(i)` on this thread, then runs each on its own
  // thread (RunOnce in a loop) until Stop() or destruction.
  ConsumerGroup(int n, const std::function<ConsumerParts(int)>& make);
  ~ConsumerGroup();
  ConsumerGroup(const ConsumerGroup&) = delete;
  ConsumerGroup& operator=(const ConsumerGroup&) = delete;

  void Stop();
  // Sum of one decision counter over all consumers, readable while they run.
  int64_t Sum(std::atomic<int64_t> DecisionCounters::*field) const;

 private:
  std::vector<ConsumerParts> parts_;
  std::vector<std::thread> threads_;
  std::atomic<bool> stop_{false};
};

// Holds the first run of one message's handler, inside its transaction, until
// the test opens the gate — so a disruption (a server killed or restarted)
// happens at a known point of the run, not whenever the test thread gets to it.
struct Gate {
  std::atomic<bool> entered{false};
  std::atomic<bool> open{false};
};
// `spec` whose handler waits at `gate` (at most a minute) for the message with
// idempotency key `key`, until the gate is open.
HandlerSpec GatedHandler(HandlerSpec spec, const std::string& key, Gate* gate);

// Polls `done` every few milliseconds until it is true or `timeout_ms` passes.
bool WaitFor(const std::function<bool()>& done, int64_t timeout_ms);

// Nothing left to deliver: no message ready, delayed or in flight (dead ones may remain).
bool QueueSettled(EmbeddedQueue& queue);

}  // namespace idem::testing
