// SimEnv: deterministic time and randomness for the simulator. Sleeping moves
// the clock; nothing waits. Every random draw comes from one seeded generator,
// so a seed replays a run exactly.
#pragma once

#include <cstdint>

#include "idem/env.h"

namespace idem::sim {

class SimEnv final : public Env {
 public:
  explicit SimEnv(uint64_t seed, int64_t start_ms = 1'790'000'000'000);

  int64_t NowMs() override { return now_ms_; }
  int64_t MonotonicMicros() override { return mono_us_; }
  void SleepMs(int64_t ms) override { Advance(ms); }
  uint64_t Random64() override;

  void Advance(int64_t ms) {
    if (ms <= 0) return;
    now_ms_ += ms;
    mono_us_ += ms * 1000;
  }
  // A wall-clock jump (NTP step); monotonic time is unaffected.
  void JumpWallClock(int64_t delta_ms) { now_ms_ += delta_ms; }

  double Uniform();                        // [0, 1)
  bool Chance(double p) { return p > 0 && Uniform() < p; }
  int64_t Range(int64_t lo, int64_t hi);   // [lo, hi]

  // Another generator, derived from this one's state without drawing from it.
  // Choices added to the simulator later draw from a fork, so the seeds saved
  // before them keep replaying the runs they were saved for.
  SimEnv Fork(uint64_t salt) const;

 private:
  int64_t now_ms_;
  int64_t mono_us_ = 0;
  uint64_t s_[4];
};

}  // namespace idem::sim
