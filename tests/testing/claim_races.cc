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

void ExpectTwoBatchesMeetingAKeyFinishedMidClaimBothCommit(const std::function<std::unique_ptr<Store>()>& open,
                                                          const std::string& gate_trigger_sql,
                                                          const SessionOf& session_of, const WaitsFor& waits_for) {
  std::unique_ptr<Store> a = open(), b = open(), c = open(), gate = open();
  ASSERT_TRUE(a && b && c && gate);
  const int64_t sa = session_of(*a), sb = session_of(*b), sc = session_of(*c), sg = session_of(*gate);
  ASSERT_TRUE(a->ExecScript(gate_trigger_sql).ok());
  auto held = gate->Begin();
  ASSERT_TRUE(held.ok()) << held.status().ToString();
  ASSERT_TRUE((*held)->Query("SELECT n FROM claim_gates WHERE n = 1 FOR UPDATE", {}).ok());

  // Each batch's first key holds its claim at the gate; R comes after it in key order.
  struct Batch {
    Store* store;
    std::vector<ClaimRequest> reqs;
    std::vector<std::string> own;
    Result<std::vector<ClaimResult>> claimed = Status::Unavailable("not run");
    Status wrote, committed = Status::Unavailable("not run");
  };
  Batch bb{b.get(), {{"z-b", "fp", "m-b-2"}, {"r", "fp", "m-b-r"}, {"b-1", "fp", "gate-1"}}, {"b-1", "z-b"}};
  Batch cb{c.get(), {{"c-1", "fp", "gate-1"}, {"r", "fp", "m-c-r"}, {"z-c", "fp", "m-c-2"}}, {"c-1", "z-c"}};
  auto run = [](Batch* batch) {
    auto tx = batch->store->Begin();
    if (!tx.ok()) return;
    batch->claimed = (*tx)->Claim("g", batch->reqs, 10, 20);
    if (!batch->claimed.ok()) return;
    std::vector<std::string> summaries;
    for (const std::string& k : batch->own) summaries.push_back("by " + k);
    std::vector<RecordWrite> writes;
    for (size_t i = 0; i < batch->own.size(); ++i)
      writes.emplace_back(batch->own[i], RecordStatus::kSucceeded, "", summaries[i]);
    batch->wrote = (*tx)->WriteRecords("g", writes, 11);
    if (batch->wrote.ok()) batch->committed = (*tx)->Commit();
  };
  std::thread tb(run, &bb), tc(run, &cb);
  EXPECT_TRUE(WaitFor([&] { return waits_for(sb, "claim_gates", sg) && waits_for(sc, "claim_gates", sg); }, 10'000))
      << "the claims never reached the gate";

  // A claims and finishes R while both claims are held; they then wait for A's row.
  auto ta = a->Begin();
  ASSERT_TRUE(ta.ok()) << ta.status().ToString();
  std::vector<ClaimRequest> ra{{"r", "fp", "m-a-r"}};
  auto seen_by_a = (*ta)->Claim("g", ra, 5, 15);
  ASSERT_TRUE(seen_by_a.ok()) << seen_by_a.status().ToString();
  ASSERT_TRUE((*seen_by_a)[0].inserted);
  const RecordWrite done{"r", RecordStatus::kSucceeded, "", "by a"};
  ASSERT_TRUE((*ta)->WriteRecords("g", {&done, 1}, 6).ok());
  EXPECT_TRUE((*held)->Commit().ok());
  EXPECT_TRUE(WaitFor([&] { return waits_for(sb, "idem_records", sa) && waits_for(sc, "idem_records", sa); }, 10'000))
      << "the claims never waited for A's record";
  EXPECT_TRUE((*ta)->Commit().ok());
  tb.join();
  tc.join();

  for (Batch* batch : {&bb, &cb}) {
    ASSERT_TRUE(batch->claimed.ok()) << "a batch's claim failed (a deadlock would rerun it): "
                                     << batch->claimed.status().ToString();
    EXPECT_TRUE(batch->wrote.ok()) << batch->wrote.ToString();
    EXPECT_TRUE(batch->committed.ok()) << batch->committed.ToString();
    for (size_t i = 0; i < batch->reqs.size(); ++i) {
      const ClaimResult& got = (*batch->claimed)[i];
      if (batch->reqs[i].key == "r") {
        EXPECT_FALSE(got.inserted);
        EXPECT_EQ(got.existing.status, RecordStatus::kSucceeded);
        EXPECT_EQ(got.existing.result_summary, "by a");
      } else {
        EXPECT_TRUE(got.inserted) << batch->reqs[i].key;
      }
    }
  }
  for (const char* key : {"b-1", "z-b", "c-1", "z-c", "r"}) {
    auto rec = a->ReadRecord("g", key);
    ASSERT_TRUE(rec.ok() && rec->has_value()) << key;
    EXPECT_EQ((*rec)->status, RecordStatus::kSucceeded) << key;
    EXPECT_EQ((*rec)->attempts, 1) << key << ": completed once";
    EXPECT_EQ((*rec)->result_summary, key == std::string("r") ? "by a" : "by " + std::string(key));
  }
}

}  // namespace idem::testing
