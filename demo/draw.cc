#include "demo/draw.h"

namespace idem::demo {

uint64_t Draw::Next() {
  // splitmix64: tiny, fast, and every seed (0 included) gives a good stream.
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

int64_t Draw::Uniform(int64_t lo, int64_t hi) {
  const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
  return lo + static_cast<int64_t>(Next() % span);
}

bool Draw::Chance(double p) {
  // 53 random bits as a double in [0, 1).
  const double u = static_cast<double>(Next() >> 11) * (1.0 / 9007199254740992.0);
  return u < p;
}

}  // namespace idem::demo
