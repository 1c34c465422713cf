// TaskThread: the real Env's background tasks. One thread, started by the
// first ScheduleAfter, runs each task when the steady clock reaches its time.
// Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

#include "idem/env.h"

namespace idem::detail {

class TaskThread {
 public:
  TaskThread() = default;
  // Lets the thread finish the task it is running, then joins it; tasks not
  // started yet are dropped.
  ~TaskThread();
  TaskThread(const TaskThread&) = delete;
  TaskThread& operator=(const TaskThread&) = delete;

  Env::TaskId ScheduleAfter(int64_t delay_ms, std::function<void()> task);
  bool Cancel(Env::TaskId id);

 private:
  using Clock = std::chrono::steady_clock;
  // Due time first, then the id: ids grow, so equal times keep the scheduling order.
  using Key = std::pair<Clock::time_point, Env::TaskId>;

  void Loop();

  std::mutex mu_;
  std::condition_variable wake_;
  std::map<Key, std::function<void()>> tasks_;
  Env::TaskId last_id_ = 0;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace idem::detail
