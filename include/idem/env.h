// Env: every contact with time and randomness goes through here.
//
// The core never reads a clock, sleeps or draws a random number on its own. The
// real Env wraps the OS; the simulator supplies a deterministic one, which is
// what lets a single seed replay a whole run exactly.
//
// Background work (a sweeper, an outbox relay, a commit timer) runs as tasks
// the Env schedules, so it too runs in real time on the real Env and replays
// from the seed under the simulator.
//
// Thread safety: Env::Default() is safe to use from any thread. Other
// implementations document their own rules (the simulator's is single-threaded).
#pragma once

#include <cstdint>
#include <functional>

namespace idem {

class Env {
 public:
  virtual ~Env() = default;

  // Wall-clock time, milliseconds since the Unix epoch. Used for leases,
  // visibility timeouts, delays and the timestamps stored in records.
  virtual int64_t NowMs() = 0;

  // Monotonic time in microseconds, for measuring durations (latency). Never
  // stored; only differences are meaningful.
  virtual int64_t MonotonicMicros() = 0;

  // Block the calling thread for `ms` milliseconds (the simulator advances its clock instead).
  virtual void SleepMs(int64_t ms) = 0;

  // A uniformly distributed 64-bit random number.
  virtual uint64_t Random64() = 0;

  // Identifies a scheduled task; never 0.
  using TaskId = uint64_t;

  // Runs `task` once, `delay_ms` from now (0 or less: as soon as possible).
  // Tasks run one at a time, in the order they fall due, and in the order they
  // were scheduled when they fall due together. A periodic task (a sweeper
  // every minute) schedules itself again at its end. A task may schedule and
  // cancel tasks.
  //   - The real Env runs them on one thread of its own, in real time; a task
  //     must return quickly (hand long work to a thread of your own) and must
  //     not throw.
  //   - The simulator's Env runs them inside the call that moves its clock past
  //     their time (SleepMs, Advance), with the clock at their time, on the
  //     calling thread, so one seed replays them exactly.
  virtual TaskId ScheduleAfter(int64_t delay_ms, std::function<void()> task) = 0;

  // Removes a task that has not started: true if it will now never run; false
  // if it already ran, is running (Cancel does not wait for it) or is unknown.
  virtual bool Cancel(TaskId id) = 0;

  // The process-wide real environment. Never deleted.
  static Env* Default();
};

}  // namespace idem
