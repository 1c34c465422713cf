#include "sim/sim_env.h"

namespace idem::sim {
namespace {

uint64_t SplitMix(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

SimEnv::SimEnv(uint64_t seed, int64_t start_ms) : now_ms_(start_ms) {
  uint64_t x = seed;
  for (uint64_t& s : s_) s = SplitMix(x);
}

// xoshiro256**: fast, and its output depends on nothing but the seed.
uint64_t SimEnv::Random64() {
  const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = Rotl(s_[3], 45);
  return result;
}

SimEnv SimEnv::Fork(uint64_t salt) const {
  return SimEnv(s_[0] ^ Rotl(s_[1], 17) ^ Rotl(s_[2], 31) ^ Rotl(s_[3], 47) ^ (salt * 0x9e3779b97f4a7c15ULL), now_ms_);
}

Env::TaskId SimEnv::ScheduleAfter(int64_t delay_ms, std::function<void()> task) {
  const TaskId id = ++last_task_;
  tasks_.emplace(std::pair{mono_us_ + (delay_ms > 0 ? delay_ms * 1000 : 0), id}, std::move(task));
  return id;
}

void SimEnv::Advance(int64_t ms) {
  const int64_t target_us = mono_us_ + (ms > 0 ? ms * 1000 : 0);
  while (!tasks_.empty() && tasks_.begin()->first.first <= target_us) {
    auto first = tasks_.begin();
    MoveClockTo(first->first.first);
    std::function<void()> task = std::move(first->second);
    tasks_.erase(first);  // before it runs: a task may schedule itself again
    task();
  }
  MoveClockTo(target_us);
}

void SimEnv::MoveClockTo(int64_t mono_us) {
  if (mono_us <= mono_us_) return;  // a task that slept has moved it already
  now_ms_ += (mono_us - mono_us_) / 1000;
  mono_us_ = mono_us;
}

double SimEnv::Uniform() { return static_cast<double>(Random64() >> 11) * 0x1.0p-53; }

int64_t SimEnv::Range(int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  return lo + static_cast<int64_t>(Random64() % static_cast<uint64_t>(hi - lo + 1));
}

}  // namespace idem::sim
