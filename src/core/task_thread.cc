#include "core/task_thread.h"

#include <algorithm>

namespace idem::detail {

TaskThread::~TaskThread() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

Env::TaskId TaskThread::ScheduleAfter(int64_t delay_ms, std::function<void()> task) {
  std::lock_guard lock(mu_);
  // Started lazily: a process that schedules nothing has no extra thread.
  if (!thread_.joinable()) thread_ = std::thread([this] { Loop(); });
  const Env::TaskId id = ++last_id_;
  tasks_.emplace(Key{Clock::now() + std::chrono::milliseconds(std::max<int64_t>(delay_ms, 0)), id}, std::move(task));
  wake_.notify_one();
  return id;
}

bool TaskThread::Cancel(Env::TaskId id) {
  std::lock_guard lock(mu_);
  // Linear: a process has a handful of background tasks, not thousands.
  for (auto it = tasks_.begin(); it != tasks_.end(); ++it) {
    if (it->first.second != id) continue;
    tasks_.erase(it);
    return true;
  }
  return false;
}

void TaskThread::Loop() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    if (tasks_.empty()) {
      wake_.wait(lock);
      continue;
    }
    auto first = tasks_.begin();
    if (first->first.first > Clock::now()) {
      // Woken early by a new, earlier task or by the destructor: look again.
      wake_.wait_until(lock, first->first.first);
      continue;
    }
    std::function<void()> task = std::move(first->second);
    tasks_.erase(first);
    // Unlocked while it runs, so the task can schedule or cancel others.
    lock.unlock();
    task();
    lock.lock();
  }
}

}  // namespace idem::detail
