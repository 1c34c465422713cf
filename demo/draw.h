// Draw: the random choices that build a workload, from a seed alone. The same
// seed always gives the same draws, so the same seed, cause and size give the
// same workload, byte for byte. (A run's clock is a sim::SimEnv; the workload
// draws from its own stream so that what a run does never changes it.)
#pragma once

#include <cstdint>

namespace idem::demo {

class Draw {
 public:
  explicit Draw(uint64_t seed) : state_(seed) {}
  // Uniform in [lo, hi] (inclusive). REQUIRES: lo <= hi.
  int64_t Uniform(int64_t lo, int64_t hi);
  // True with probability `p` (0..1).
  bool Chance(double p);

 private:
  uint64_t Next();

  uint64_t state_;
};

}  // namespace idem::demo
