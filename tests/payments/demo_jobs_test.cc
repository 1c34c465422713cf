// `idem demo --jobs`: runs side by side give the same results as one after
// another, and a failing run is reported the same way whatever the timing.
#include <gtest/gtest.h>

#include <atomic>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "demo/concurrent_runs.h"
#include "testing/test_util.h"

namespace {

// The demo's JSON without what real time decides (seconds and rates).
nlohmann::json DemoJsonWithoutTimes(const std::string& jobs) {
  auto r = idem::testing::RunProcess({IDEM_CLI_PATH, "demo", "--json", "--messages", "60", "--seed", "5", "--only",
                                      "001,A3,A5", "--jobs", jobs});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_TRUE(j.is_object()) << r.out;
  if (!j.is_object()) return j;
  for (auto& s : j["scenarios"])
    for (const char* mode : {"off", "on"})
      for (const char* timed : {"wall_seconds", "busy_seconds", "messages_per_second"}) s[mode].erase(timed);
  return j;
}

TEST(DemoJobs, RunsSideBySideGiveTheSameResultsAsOneAfterAnother) {
  const nlohmann::json one = DemoJsonWithoutTimes("1");
  const nlohmann::json all = DemoJsonWithoutTimes("6");
  ASSERT_EQ(one["scenarios"].size(), 3u);
  EXPECT_EQ(one, all) << "--jobs 1:\n" << one.dump(1) << "\n--jobs 6:\n" << all.dump(1);
  EXPECT_EQ(one["off_shows_damage"], true);
  EXPECT_EQ(one["idem_clean"], true);
}

TEST(DemoJobs, AFailedRunStopsTheRestFromStartingAndTheLowestFailureIsRethrown) {
  std::vector<std::atomic<bool>> ran(8);
  try {
    idem::demo::RunConcurrently(ran.size(), 2, [&](size_t i) {
      ran[i] = true;
      if (i == 1 || i == 2) throw std::runtime_error("run " + std::to_string(i));
    });
    FAIL() << "the failures were swallowed";
  } catch (const std::runtime_error& e) {
    // Runs 1 and 2 may both have failed, in either order: the report names the lowest.
    EXPECT_STREQ(e.what(), "run 1");
  }
  EXPECT_TRUE(ran[0]);
  // Each of the two threads stops at its first failure, so nothing past run 2 started.
  for (size_t i = 3; i < ran.size(); ++i) EXPECT_FALSE(ran[i]) << "run " << i << " started after a failure";
}

TEST(DemoJobs, EveryRunRunsOnceWithAnyNumberOfJobs) {
  for (size_t jobs : {0, 1, 3, 20}) {
    std::vector<std::atomic<int>> calls(5);
    idem::demo::RunConcurrently(calls.size(), jobs, [&](size_t i) { calls[i]++; });
    for (size_t i = 0; i < calls.size(); ++i) EXPECT_EQ(calls[i], 1) << "run " << i << ", jobs " << jobs;
  }
}

}  // namespace
