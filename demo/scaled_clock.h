// ScaledClock: the scenario clock of a run on a real broker. It runs `speedup`
// times faster than real time from the workload's start (the morning of the
// incident), so a 30 s retry rung or the bank's 11 s call takes 1/speedup of
// that in real time, and the times written to the ledger still read as the
// scenario's. While nothing is in flight the driver may jump it forward to the
// next publication (nothing can happen in between). Random numbers come from
// the seed, as with sim::SimEnv; background tasks run on the real Env, their
// delays scaled. Not thread-safe: one driving thread.
#pragma once

#include <cstdint>

#include "idem/env.h"
#include "sim/sim_env.h"

namespace idem::demo {

class ScaledClock final : public Env {
 public:
  // REQUIRES: speedup >= 1; real != nullptr (the real time it scales).
  ScaledClock(int64_t start_ms, int64_t speedup, uint64_t seed, Env* real);

  int64_t NowMs() override { return start_ms_ + offset_ms_ + RealElapsedUs() * speedup_ / 1000; }
  int64_t MonotonicMicros() override { return NowMs() * 1000; }
  // Sleeps ms / speedup of real time; the clock has moved at least `ms` afterwards.
  void SleepMs(int64_t ms) override;
  uint64_t Random64() override { return random_.Random64(); }
  TaskId ScheduleAfter(int64_t delay_ms, std::function<void()> task) override {
    return real_->ScheduleAfter(ToRealMs(delay_ms), std::move(task));
  }
  bool Cancel(TaskId id) override { return real_->Cancel(id); }

  // Sets the clock back to the start, from now on (setting up a run takes real
  // time that the scenario should not see).
  void Restart() {
    real_start_us_ = real_->MonotonicMicros();
    offset_ms_ = 0;
  }
  // Moves the clock forward to `ms` if it is behind it (never backwards).
  void JumpTo(int64_t ms);
  // Scenario milliseconds → real milliseconds, rounded up (0 stays 0).
  int64_t ToRealMs(int64_t scenario_ms) const {
    return scenario_ms <= 0 ? 0 : (scenario_ms + speedup_ - 1) / speedup_;
  }
  int64_t speedup() const { return speedup_; }

 private:
  int64_t RealElapsedUs() const { return real_->MonotonicMicros() - real_start_us_; }

  int64_t start_ms_, speedup_;
  Env* real_;
  int64_t real_start_us_;
  int64_t offset_ms_ = 0;  // jumps and sleep shortfalls, added on top of scaled real time
  sim::SimEnv random_;
};

}  // namespace idem::demo
