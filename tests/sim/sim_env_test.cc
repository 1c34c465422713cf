// SimEnv's background tasks: they run while its clock moves past their time,
// each with the clock at that time, in due order (ties in scheduling order) —
// the same way on every run — and a cancelled one never runs.
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "sim/sim_env.h"

namespace idem::sim {
namespace {

using Ran = std::vector<std::pair<std::string, int64_t>>;

TEST(SimEnvTest, RunsTasksAsTheClockPassesTheirTime) {
  SimEnv env(/*seed=*/7, /*start_ms=*/1'000'000);
  Ran ran;
  auto record = [&](std::string name) { return [&env, &ran, name] { ran.emplace_back(name, env.NowMs()); }; };
  env.ScheduleAfter(30, record("b"));
  env.ScheduleAfter(10, record("a1"));
  env.ScheduleAfter(10, record("a2"));
  const Env::TaskId cancelled = env.ScheduleAfter(20, record("cancelled"));
  // A sweeper every 100 ms schedules itself again.
  std::function<void()> sweep = [&] {
    ran.emplace_back("sweep", env.NowMs());
    env.ScheduleAfter(100, sweep);
  };
  env.ScheduleAfter(100, sweep);
  EXPECT_TRUE(env.Cancel(cancelled));
  EXPECT_FALSE(env.Cancel(cancelled));

  env.SleepMs(5);
  EXPECT_TRUE(ran.empty()) << "nothing is due 5 ms in";
  env.Advance(245);
  EXPECT_EQ(ran, (Ran{{"a1", 1'000'010}, {"a2", 1'000'010}, {"b", 1'000'030}, {"sweep", 1'000'100},
                      {"sweep", 1'000'200}}));
  EXPECT_EQ(env.NowMs(), 1'000'250) << "the clock ends where it was sent";

  // Tasks are due on the monotonic clock: a wall-clock step fires none.
  env.JumpWallClock(3'600'000);
  env.Advance(0);
  EXPECT_EQ(ran.size(), 5u);
  env.Advance(50);
  ASSERT_EQ(ran.size(), 6u);
  EXPECT_EQ(ran.back(), (std::pair<std::string, int64_t>{"sweep", 1'000'300 + 3'600'000}));
}

}  // namespace
}  // namespace idem::sim
