// Env: every contact with time and randomness goes through here.
//
// The core never reads a clock, sleeps or draws a random number on its own. The
// real Env wraps the OS; the simulator supplies a deterministic one, which is
// what lets a single seed replay a whole run exactly.
//
// Thread safety: Env::Default() is safe to use from any thread. Other
// implementations document their own rules (the simulator's is single-threaded).
#pragma once

#include <cstdint>

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

  // The process-wide real environment. Never deleted.
  static Env* Default();
};

}  // namespace idem
