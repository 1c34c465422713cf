#include "demo/concurrent_runs.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>
#include <vector>

namespace idem::demo {

void RunConcurrently(size_t count, size_t jobs, const std::function<void(size_t)>& task) {
  std::vector<std::exception_ptr> errors(count);
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  auto work = [&] {
    for (;;) {
      if (failed.load()) return;
      const size_t i = next.fetch_add(1);
      if (i >= count) return;
      try {
        task(i);
      } catch (...) {
        errors[i] = std::current_exception();
        failed.store(true);
      }
    }
  };
  const size_t threads = std::min(jobs, count);
  if (threads <= 1) {
    work();
  } else {
    std::vector<std::thread> pool;
    pool.reserve(threads);
    for (size_t t = 0; t < threads; ++t) pool.emplace_back(work);
    for (std::thread& t : pool) t.join();
  }
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace idem::demo
