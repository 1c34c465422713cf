// SeededEnv: a deterministic Env for the demo, the tests and the simulator.
// Time moves only when someone sleeps or the driver advances it, and every
// random number comes from the seed — so one seed replays a whole run.
// Not thread-safe: one driving thread.
#pragma once

#include <cstdint>

#include "idem/env.h"

namespace idem::demo {

class SeededEnv final : public Env {
 public:
  SeededEnv(int64_t start_ms, uint64_t seed) : now_ms_(start_ms), state_(seed) {}

  int64_t NowMs() override { return now_ms_; }
  // Durations (pipeline latency) are measured on the same simulated clock.
  int64_t MonotonicMicros() override { return now_ms_ * 1000; }
  // A handler's slow bank call or a back-off: simulated time passes at once.
  void SleepMs(int64_t ms) override {
    if (ms > 0) now_ms_ += ms;
  }
  uint64_t Random64() override;

  void Advance(int64_t ms) { SleepMs(ms); }

 private:
  int64_t now_ms_;
  uint64_t state_;
};

// Draws from an Env's random numbers.
class Draw {
 public:
  explicit Draw(Env& env) : env_(env) {}
  // Uniform in [lo, hi] (inclusive). REQUIRES: lo <= hi.
  int64_t Uniform(int64_t lo, int64_t hi);
  // True with probability `p` (0..1).
  bool Chance(double p);

 private:
  Env& env_;
};

}  // namespace idem::demo
