#include "testing/claim_races.h"

#include <gtest/gtest.h>

#include <thread>

#include "testing/consumer_group.h"

namespace idem::testing {

void ExpectAWaitingClaimReportsTheOtherWorkersDecision(Store& a_store, Store& b_store, const WaitsForLock& b_waits) {
  for (bool a_commits : {true, false}) {
    const std::string key = a_commits ? "k-commit" : "k-rollback";
    std::vector<ClaimRequest> reqs{{key, "fp", "m-a"}};
    auto a = a_store.Begin();
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    ASSERT_TRUE((*a)->Claim("g", reqs, 1, 2).ok());
    ASSERT_TRUE((*a)->Complete("g", key, RecordStatus::kSucceeded, "", "by a", 3).ok());
    Result<std::vector<ClaimResult>> seen_by_b = Status::Unavailable("not run");
    std::thread b([&] {
      auto tx = b_store.Begin();
      if (!tx.ok()) return;
      seen_by_b = (*tx)->Claim("g", reqs, 4, 5);
    });
    EXPECT_TRUE(WaitFor(b_waits, 10'000)) << "B never waited for A";
    if (a_commits) EXPECT_TRUE((*a)->Commit().ok());
    else (*a)->Rollback();
    b.join();
    ASSERT_TRUE(seen_by_b.ok()) << seen_by_b.status().ToString();
    if (a_commits) {
      EXPECT_FALSE((*seen_by_b)[0].inserted);
      EXPECT_EQ((*seen_by_b)[0].existing.status, RecordStatus::kSucceeded);
      EXPECT_EQ((*seen_by_b)[0].existing.result_summary, "by a");
    } else {
      EXPECT_TRUE((*seen_by_b)[0].inserted);
    }
  }
}

void ExpectTwoWorkersRetryingOneReleasedKeyNeverBothTakeItOver(Store& a_store, Store& b_store,
                                                               const WaitsForLock& b_waits) {
  std::vector<ClaimRequest> first{{"k", "fp", "m1"}};
  {
    auto tx = a_store.Begin();
    ASSERT_TRUE(tx.ok()) << tx.status().ToString();
    ASSERT_TRUE((*tx)->Claim("g", first, 1, 2).ok());
    ASSERT_TRUE((*tx)->Complete("g", "k", RecordStatus::kReleased, "bank timeout", "", 3).ok());
    ASSERT_TRUE((*tx)->Commit().ok());
  }
  std::vector<ClaimRequest> retry_a{{"k", "fp", "m2"}}, retry_b{{"k", "fp", "m3"}};
  auto a = a_store.Begin();
  ASSERT_TRUE(a.ok());
  auto seen_by_a = (*a)->Claim("g", retry_a, 10, 20);
  ASSERT_TRUE(seen_by_a.ok()) << seen_by_a.status().ToString();
  ASSERT_EQ((*seen_by_a)[0].existing.status, RecordStatus::kReleased);
  const RecordWrite taken_over{"k", RecordStatus::kSucceeded, "", "paid", "m2"};
  ASSERT_TRUE((*a)->WriteRecords("g", {&taken_over, 1}, 11).ok());
  Result<std::vector<ClaimResult>> seen_by_b = Status::Unavailable("not run");
  std::thread b([&] {
    auto tx = b_store.Begin();
    if (tx.ok()) seen_by_b = (*tx)->Claim("g", retry_b, 12, 22);
  });
  EXPECT_TRUE(WaitFor(b_waits, 10'000)) << "B's claim did not wait for A's lock on the record";
  EXPECT_TRUE((*a)->Commit().ok());
  b.join();
  ASSERT_TRUE(seen_by_b.ok()) << seen_by_b.status().ToString();
  EXPECT_EQ((*seen_by_b)[0].existing.status, RecordStatus::kSucceeded) << "B must see A's outcome, not RELEASED";
  EXPECT_EQ((*seen_by_b)[0].existing.message_id, "m2");
}

}  // namespace idem::testing
