// The real Env's background tasks: they run in due order, not before their
// time, and a cancelled one never runs.
#include <chrono>
#include <future>
#include <mutex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "idem/env.h"

namespace idem {
namespace {

TEST(EnvDefaultTest, RunsTasksInDueOrderNotBeforeTheirTimeAndNeverOnceCancelled) {
  Env* env = Env::Default();
  std::mutex mu;
  std::vector<std::string> ran;
  int64_t second_ran_after_us = 0;
  std::promise<void> last_ran;
  const int64_t scheduled_us = env->MonotonicMicros();

  env->ScheduleAfter(30, [&] {
    std::lock_guard lock(mu);
    ran.push_back("second");
    second_ran_after_us = env->MonotonicMicros() - scheduled_us;
  });
  env->ScheduleAfter(0, [&] {
    std::lock_guard lock(mu);
    ran.push_back("first");
  });
  const Env::TaskId cancelled = env->ScheduleAfter(10, [&] {
    std::lock_guard lock(mu);
    ran.push_back("cancelled");
  });
  // Due after all the others: once it has run, any of them that was going to has.
  env->ScheduleAfter(60, [&] {
    {
      std::lock_guard lock(mu);
      ran.push_back("last");
    }
    last_ran.set_value();
  });
  EXPECT_TRUE(env->Cancel(cancelled));
  EXPECT_FALSE(env->Cancel(cancelled)) << "a task is cancelled once";

  ASSERT_EQ(last_ran.get_future().wait_for(std::chrono::seconds(30)), std::future_status::ready)
      << "the task thread never ran the last task";
  std::lock_guard lock(mu);
  EXPECT_EQ(ran, (std::vector<std::string>{"first", "second", "last"}));
  EXPECT_GE(second_ran_after_us, 30'000) << "a task ran before its delay was over";
}

}  // namespace
}  // namespace idem
