// The real Env: the OS clock, nanosleep, a per-thread random generator and one
// thread for background tasks.
#include <chrono>
#include <random>
#include <thread>

#include "core/task_thread.h"
#include "idem/env.h"

namespace idem {
namespace {

class PosixEnv final : public Env {
 public:
  int64_t NowMs() override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  int64_t MonotonicMicros() override {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  void SleepMs(int64_t ms) override {
    if (ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  }
  uint64_t Random64() override {
    thread_local std::mt19937_64 gen{std::random_device{}()};
    return gen();
  }
  TaskId ScheduleAfter(int64_t delay_ms, std::function<void()> task) override {
    return tasks_.ScheduleAfter(delay_ms, std::move(task));
  }
  bool Cancel(TaskId id) override { return tasks_.Cancel(id); }

 private:
  detail::TaskThread tasks_;
};

}  // namespace

Env* Env::Default() {
  static PosixEnv* env = new PosixEnv();  // never destroyed: usable during static teardown
  return env;
}

}  // namespace idem
