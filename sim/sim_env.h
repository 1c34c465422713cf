// SimEnv: deterministic time, randomness and background tasks for the
// simulator. Sleeping moves the clock; nothing waits. Every random draw comes
// from one seeded generator, and scheduled tasks run inside the call that moves
// the clock past their time, so a seed replays a run exactly. Single-threaded.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <utility>

#include "idem/env.h"

namespace idem::sim {

class SimEnv final : public Env {
 public:
  explicit SimEnv(uint64_t seed, int64_t start_ms = 1'790'000'000'000);

  int64_t NowMs() override { return now_ms_; }
  int64_t MonotonicMicros() override { return mono_us_; }
  void SleepMs(int64_t ms) override { Advance(ms); }
  uint64_t Random64() override;
  // Due on the monotonic clock, as a real timer is: a wall-clock jump moves no task.
  TaskId ScheduleAfter(int64_t delay_ms, std::function<void()> task) override;
  bool Cancel(TaskId id) override {
    return std::erase_if(tasks_, [id](const auto& task) { return task.first.second == id; }) > 0;
  }

  // Moves the clock `ms` forward (nothing for ms <= 0), running each task that
  // falls due on the way with the clock at its time.
  void Advance(int64_t ms);
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
  // Moves both clocks forward so that monotonic time reads `mono_us` (never back).
  void MoveClockTo(int64_t mono_us);

  int64_t now_ms_;
  int64_t mono_us_ = 0;
  uint64_t s_[4];
  // (due on the monotonic clock, id): ids grow, so equal times keep the scheduling order.
  std::map<std::pair<int64_t, TaskId>, std::function<void()>> tasks_;
  TaskId last_task_ = 0;
};

}  // namespace idem::sim
