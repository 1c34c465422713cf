#include "conformance/store_conformance.h"

#include <thread>

namespace idem::testing {

void StoreConformance::SetUp() {
  location_ = GetParam().fresh_database();
  if (IsSkipped()) return;  // a server backend without its server skips with a reason
  store_ = Connect();
  ASSERT_NE(store_, nullptr);
  Status s = store_->ExecScript(
      "CREATE TABLE flows (biz_no VARCHAR(64) NOT NULL, type VARCHAR(32) NOT NULL, amount BIGINT NOT NULL, "
      "UNIQUE (biz_no, type))");
  ASSERT_TRUE(s.ok()) << s.ToString();
}

std::unique_ptr<Store> StoreConformance::Connect() { return GetParam().open(location_, Env::Default()); }

namespace {

constexpr int64_t kNow = 1'700'000'000'000;

ClaimRequest Req(std::string key, std::string fp = "fp", std::string id = "m1") {
  return ClaimRequest{std::move(key), std::move(fp), std::move(id)};
}

TEST_P(StoreConformance, ClaimInsertsNewKeysAndReportsExistingOnesUnchanged) {
  {
    auto tx = store_->Begin();
    ASSERT_TRUE(tx.ok()) << tx.status().ToString();
    std::vector<ClaimRequest> reqs{Req("k1"), Req("k2")};
    auto c = (*tx)->Claim("g", reqs, kNow, kNow + 1000);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    EXPECT_TRUE((*c)[0].inserted);
    EXPECT_TRUE((*c)[1].inserted);
    ASSERT_TRUE((*tx)->Complete("g", "k1", RecordStatus::kSucceeded, "", "done", kNow + 5).ok());
    ASSERT_TRUE((*tx)->Commit().ok());
  }
  auto tx = store_->Begin();
  ASSERT_TRUE(tx.ok());
  std::vector<ClaimRequest> reqs{Req("k2", "fp", "m2"), Req("k1", "other-fp", "m3"), Req("k3")};
  auto c = (*tx)->Claim("g", reqs, kNow + 10, kNow + 2000);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_FALSE((*c)[0].inserted);
  EXPECT_EQ((*c)[0].existing.status, RecordStatus::kProcessing);
  EXPECT_EQ((*c)[0].existing.lease_until_ms, kNow + 1000);
  EXPECT_EQ((*c)[0].existing.message_id, "m1");
  EXPECT_FALSE((*c)[1].inserted);
  EXPECT_EQ((*c)[1].existing.status, RecordStatus::kSucceeded);
  EXPECT_EQ((*c)[1].existing.fingerprint, "fp");
  EXPECT_EQ((*c)[1].existing.attempts, 1);
  EXPECT_EQ((*c)[1].existing.result_summary, "done");
  EXPECT_EQ((*c)[1].existing.first_seen_ms, kNow);
  EXPECT_TRUE((*c)[2].inserted);
}

TEST_P(StoreConformance, GroupsAreSeparate) {
  auto tx = store_->Begin();
  ASSERT_TRUE(tx.ok());
  std::vector<ClaimRequest> reqs{Req("k")};
  ASSERT_TRUE((*tx)->Claim("a", reqs, kNow, kNow).ok());
  auto c = (*tx)->Claim("b", reqs, kNow, kNow);
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE((*c)[0].inserted);
}

TEST_P(StoreConformance, RollbackForgetsClaimsAndEffects) {
  {
    auto tx = store_->Begin();
    ASSERT_TRUE(tx.ok());
    std::vector<ClaimRequest> reqs{Req("k")};
    ASSERT_TRUE((*tx)->Claim("g", reqs, kNow, kNow).ok());
    ASSERT_TRUE((*tx)->Exec("INSERT INTO flows (biz_no, type, amount) VALUES (?, ?, ?)",
                            {std::string("B1"), std::string("PAY"), int64_t{5}})
                    .ok());
    // destroyed without Commit: rolls back
  }
  auto r = store_->ReadRecord("g", "k");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value());
  auto tx = store_->Begin();
  ASSERT_TRUE(tx.ok());
  auto rows = (*tx)->Query("SELECT COUNT(*) FROM flows", {});
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(AsInt((*rows)[0][0]), 0);
}

// One list holds a batch's completions, a take-over folded into its
// completion, and the touch of a copy.
TEST_P(StoreConformance, RecordWritesTakeTheWholeBatchInOneCall) {
  {
    auto tx = store_->Begin();
    ASSERT_TRUE(tx.ok());
    std::vector<ClaimRequest> reqs{Req("old"), Req("seen")};
    ASSERT_TRUE((*tx)->Claim("g", reqs, kNow, kNow + 10).ok());
    ASSERT_TRUE((*tx)->Complete("g", "old", RecordStatus::kReleased, "bank timeout", "", kNow + 1).ok());
    ASSERT_TRUE((*tx)->Complete("g", "seen", RecordStatus::kSucceeded, "", "kept", kNow + 1).ok());
    ASSERT_TRUE((*tx)->Commit().ok());
  }
  // Text that must survive however a backend ships a batch (quotes, commas, braces, backslashes).
  const std::string odd = R"(he said "no", {twice} \ NULL)";
  auto tx = store_->Begin();
  ASSERT_TRUE(tx.ok());
  std::vector<ClaimRequest> reqs{Req("new"), Req("old", "fp", "m2"), Req("seen", "fp", "m3")};
  ASSERT_TRUE((*tx)->Claim("g", reqs, kNow + 100, kNow + 200).ok());
  const std::vector<RecordWrite> batch{{"new", RecordStatus::kSucceeded, "", odd},
                                       {"old", RecordStatus::kFailed, odd, "", "m2"},
                                       RecordWrite::Touch("seen")};
  Status s = (*tx)->WriteRecords("g", batch, kNow + 150);
  ASSERT_TRUE(s.ok()) << s.ToString();
  const std::vector<RecordWrite> with_missing{{"new", RecordStatus::kSucceeded, "", ""},
                                              {"gone", RecordStatus::kSucceeded, "", ""}};
  s = (*tx)->WriteRecords("g", with_missing, kNow + 160);
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  EXPECT_NE(s.message().find("gone"), std::string::npos) << s.ToString();
  (*tx)->Rollback();
  // Nothing of a rolled-back batch stays; commit the good one alone.
  tx = store_->Begin();
  ASSERT_TRUE(tx.ok());
  ASSERT_TRUE((*tx)->Claim("g", reqs, kNow + 100, kNow + 200).ok());
  ASSERT_TRUE((*tx)->WriteRecords("g", batch, kNow + 150).ok());
  ASSERT_TRUE((*tx)->Commit().ok());
  auto n = store_->ReadRecord("g", "new");
  ASSERT_TRUE(n.ok() && n->has_value());
  EXPECT_EQ((*n)->status, RecordStatus::kSucceeded);
  EXPECT_EQ((*n)->attempts, 1);
  EXPECT_EQ((*n)->result_summary, odd);
  auto o = store_->ReadRecord("g", "old");
  ASSERT_TRUE(o.ok() && o->has_value());
  EXPECT_EQ((*o)->status, RecordStatus::kFailed);
  EXPECT_EQ((*o)->attempts, 2);
  EXPECT_EQ((*o)->last_error, odd);
  EXPECT_EQ((*o)->last_seen_ms, kNow + 150);
  EXPECT_EQ((*o)->message_id, "m2") << "the take-over names the message that ran";
  EXPECT_EQ((*o)->lease_until_ms, 0);
  auto seen = store_->ReadRecord("g", "seen");
  ASSERT_TRUE(seen.ok() && seen->has_value());
  EXPECT_EQ((*seen)->status, RecordStatus::kSucceeded) << "a touch leaves the outcome alone";
  EXPECT_EQ((*seen)->attempts, 1);
  EXPECT_EQ((*seen)->duplicates, 1);
  EXPECT_EQ((*seen)->result_summary, "kept");
  EXPECT_EQ((*seen)->message_id, "m1");
  EXPECT_EQ((*seen)->last_seen_ms, kNow + 150);
}

// A list that completes one key claimed in this transaction and counts a copy
// on another: both records are written, whenever the store writes new rows.
TEST_P(StoreConformance, OneWriteListCompletesANewKeyAndTouchesAnother) {
  {
    auto tx = store_->Begin();
    ASSERT_TRUE(tx.ok());
    std::vector<ClaimRequest> reqs{Req("a"), Req("b", "fp", "m2")};
    ASSERT_TRUE((*tx)->Claim("g", reqs, kNow, kNow + 10).ok());
    const std::vector<RecordWrite> writes{{"a", RecordStatus::kSucceeded, "", "done"}, RecordWrite::Touch("b")};
    Status s = (*tx)->WriteRecords("g", writes, kNow + 5);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_TRUE((*tx)->Commit().ok());
  }
  auto a = store_->ReadRecord("g", "a");
  ASSERT_TRUE(a.ok() && a->has_value());
  EXPECT_EQ((*a)->status, RecordStatus::kSucceeded);
  EXPECT_EQ((*a)->attempts, 1);
  EXPECT_EQ((*a)->result_summary, "done");
  auto b = store_->ReadRecord("g", "b");
  ASSERT_TRUE(b.ok() && b->has_value());
  EXPECT_EQ((*b)->status, RecordStatus::kProcessing);
  EXPECT_EQ((*b)->duplicates, 1);
  EXPECT_EQ((*b)->message_id, "m2");
  EXPECT_EQ((*b)->last_seen_ms, kNow + 5);
}

TEST_P(StoreConformance, ATakeOverCompletedThenTouchedCountsAttemptsAndCopies) {
  {
    auto tx = store_->Begin();
    ASSERT_TRUE(tx.ok());
    std::vector<ClaimRequest> reqs{Req("k")};
    ASSERT_TRUE((*tx)->Claim("g", reqs, kNow, kNow + 10).ok());
    ASSERT_TRUE((*tx)->Complete("g", "k", RecordStatus::kReleased, "bank timeout", "", kNow + 1).ok());
    ASSERT_TRUE((*tx)->Commit().ok());
  }
  {
    auto tx = store_->Begin();
    ASSERT_TRUE(tx.ok());
    const RecordWrite taken_over{"k", RecordStatus::kSucceeded, "", "ok", "m2"};
    ASSERT_TRUE((*tx)->WriteRecords("g", {&taken_over, 1}, kNow + 101).ok());
    const RecordWrite touch = RecordWrite::Touch("k");
    ASSERT_TRUE((*tx)->WriteRecords("g", {&touch, 1}, kNow + 102).ok());
    EXPECT_TRUE((*tx)->Complete("g", "missing", RecordStatus::kSucceeded, "", "", kNow).IsNotFound());
    const RecordWrite touch_missing = RecordWrite::Touch("missing");
    EXPECT_TRUE((*tx)->WriteRecords("g", {&touch_missing, 1}, kNow).IsNotFound());
    ASSERT_TRUE((*tx)->Commit().ok());
  }
  auto r = store_->ReadRecord("g", "k");
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((*r)->status, RecordStatus::kSucceeded);
  EXPECT_EQ((*r)->attempts, 2);
  EXPECT_EQ((*r)->duplicates, 1);
  EXPECT_EQ((*r)->message_id, "m2");
  EXPECT_EQ((*r)->last_error, "");
  EXPECT_EQ((*r)->result_summary, "ok");
  EXPECT_EQ((*r)->first_seen_ms, kNow);
  EXPECT_EQ((*r)->last_seen_ms, kNow + 102);
}

TEST_P(StoreConformance, SavepointRollbackKeepsEarlierWorkAndUniqueViolationSaysAlreadyExists) {
  auto tx = store_->Begin();
  ASSERT_TRUE(tx.ok());
  ASSERT_TRUE((*tx)->Exec("INSERT INTO flows (biz_no, type, amount) VALUES (?, ?, ?)",
                          {std::string("B1"), std::string("PAY"), int64_t{5}})
                  .ok());
  ASSERT_TRUE((*tx)->Savepoint("sp1").ok());
  auto dup = (*tx)->Exec("INSERT INTO flows (biz_no, type, amount) VALUES (?, ?, ?)",
                         {std::string("B1"), std::string("PAY"), int64_t{5}});
  EXPECT_TRUE(dup.status().IsAlreadyExists()) << dup.status().ToString();
  ASSERT_TRUE((*tx)->RollbackTo("sp1").ok());
  ASSERT_TRUE((*tx)->Release("sp1").ok());
  ASSERT_TRUE((*tx)->Exec("INSERT INTO flows (biz_no, type, amount) VALUES (?, ?, ?)",
                          {std::string("B1"), std::string("REFUND"), int64_t{-5}})
                  .ok());
  ASSERT_TRUE((*tx)->Commit().ok());
  auto tx2 = store_->Begin();
  ASSERT_TRUE(tx2.ok());
  auto rows = (*tx2)->Query("SELECT type, amount FROM flows ORDER BY type", {});
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ(AsText((*rows)[0][0]), "PAY");
  EXPECT_EQ(AsInt((*rows)[1][1]), -5);
}

TEST_P(StoreConformance, KeysWithSqlMetacharactersAndUnicodeAreStoredByteExact) {
  const std::string key = "pay:x'; DROP TABLE idem_records; --\\\"%_ \xe6\x94\xaf\xe4\xbb\x98";
  {
    auto tx = store_->Begin();
    ASSERT_TRUE(tx.ok());
    std::vector<ClaimRequest> reqs{Req(key)};
    ASSERT_TRUE((*tx)->Claim("g", reqs, kNow, kNow).ok());
    ASSERT_TRUE((*tx)->Commit().ok());
  }
  auto r = store_->ReadRecord("g", key);
  ASSERT_TRUE(r.ok() && r->has_value()) << r.status().ToString();
  EXPECT_EQ((*r)->key, key);
  auto other = store_->ReadRecord("g", "pay:x");
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(other->has_value());
}

TEST_P(StoreConformance, SweepRemovesOnlyOldFinishedRecordsInBoundedBatches) {
  {
    auto tx = store_->Begin();
    ASSERT_TRUE(tx.ok());
    std::vector<ClaimRequest> reqs{Req("old1"), Req("old2"), Req("old3"), Req("busy"), Req("new")};
    ASSERT_TRUE((*tx)->Claim("g", reqs, kNow, kNow).ok());
    for (const char* k : {"old1", "old2", "old3"})
      ASSERT_TRUE((*tx)->Complete("g", k, RecordStatus::kSucceeded, "", "", kNow).ok());
    ASSERT_TRUE((*tx)->Complete("g", "new", RecordStatus::kSucceeded, "", "", kNow + 10'000).ok());
    ASSERT_TRUE((*tx)->Commit().ok());
  }
  auto n = store_->SweepRecords(kNow + 5'000, 2);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, 2);
  n = store_->SweepRecords(kNow + 5'000, 2);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 1);
  for (const char* k : {"busy", "new"}) {
    auto r = store_->ReadRecord("g", k);
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r->has_value()) << k << " must survive the sweep";
  }
}

TEST_P(StoreConformance, ValuesOfEveryTypeRoundTrip) {
  ASSERT_TRUE(store_->ExecScript("CREATE TABLE vals (i BIGINT, d DOUBLE PRECISION, t VARCHAR(64), n BIGINT)").ok());
  auto tx = store_->Begin();
  ASSERT_TRUE(tx.ok());
  ASSERT_TRUE((*tx)->Exec("INSERT INTO vals (i, d, t, n) VALUES (?, ?, ?, ?)",
                          {int64_t{-42}, 2.5, std::string("it's"), nullptr})
                  .ok());
  auto rows = (*tx)->Query("SELECT i, d, t, n FROM vals WHERE t = ?", {std::string("it's")});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ(AsInt((*rows)[0][0]), -42);
  EXPECT_EQ(AsText((*rows)[0][2]), "it's");
  EXPECT_TRUE(IsNull((*rows)[0][3]));
}

// Two connections claim the same key at once: exactly one inserts.
TEST_P(StoreConformance, ConcurrentClaimsOfOneKeyLetExactlyOneWin) {
  auto other = Connect();
  ASSERT_NE(other, nullptr);
  constexpr int kRounds = 20;
  for (int round = 0; round < kRounds; ++round) {
    const std::string key = "race-" + std::to_string(round);
    int inserted = 0;
    std::vector<std::thread> threads;
    std::atomic<int> wins{0};
    std::atomic<int> failures{0};
    for (Store* s : {store_.get(), other.get()}) {
      threads.emplace_back([&, s] {
        auto tx = s->Begin();
        if (!tx.ok()) {
          failures++;
          return;
        }
        std::vector<ClaimRequest> reqs{Req(key)};
        auto c = (*tx)->Claim("g", reqs, kNow, kNow + 1000);
        if (!c.ok()) {
          failures++;
          return;
        }
        if ((*c)[0].inserted) {
          if (!(*tx)->Complete("g", key, RecordStatus::kSucceeded, "", "", kNow).ok()) failures++;
          if ((*tx)->Commit().ok()) wins++;
        }
      });
    }
    for (auto& t : threads) t.join();
    inserted = wins.load();
    EXPECT_EQ(failures.load(), 0) << "round " << round;
    EXPECT_EQ(inserted, 1) << "round " << round;
  }
}

// The catalogue as the declared schema check reads it: each column in its
// order with what its type holds; no table, no columns; nothing written, and
// the transaction goes on as before.
TEST_P(StoreConformance, DescribeTableReadsTheColumnsAndTheirKinds) {
  ASSERT_TRUE(store_->ExecScript("CREATE TABLE kinds (i INTEGER, d DECIMAL(12, 2), r DOUBLE PRECISION, t TEXT, "
                                 "v VARCHAR(20))")
                  .ok());
  auto tx = store_->Begin();
  ASSERT_TRUE(tx.ok()) << tx.status().ToString();
  auto kinds = (*tx)->DescribeTable("kinds");
  ASSERT_TRUE(kinds.ok()) << kinds.status().ToString();
  ASSERT_TRUE(kinds->has_value());
  std::vector<std::string> names;
  std::vector<TableColumn::Kind> got;
  for (const TableColumn& c : **kinds) {
    names.push_back(c.name);
    got.push_back(c.kind);
    EXPECT_FALSE(c.declared_type.empty()) << c.name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"i", "d", "r", "t", "v"}));
  using K = TableColumn::Kind;
  EXPECT_EQ(got, (std::vector<K>{K::kInteger, K::kDecimal, K::kReal, K::kText, K::kText}));

  auto flows = (*tx)->DescribeTable("flows");
  ASSERT_TRUE(flows.ok()) << flows.status().ToString();
  ASSERT_TRUE(flows->has_value());
  EXPECT_EQ((*flows)->size(), 3u);
  EXPECT_EQ((*flows)->at(2).name, "amount");
  EXPECT_EQ((*flows)->at(2).kind, K::kInteger);

  auto none = (*tx)->DescribeTable("no_such_table");
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_FALSE(none->has_value());

  // The name is a parameter, never SQL text.
  auto odd = (*tx)->DescribeTable("flows'; DROP TABLE flows; --");
  ASSERT_TRUE(odd.ok()) << odd.status().ToString();
  EXPECT_FALSE(odd->has_value());
  ASSERT_TRUE((*tx)->Exec("INSERT INTO flows (biz_no, type, amount) VALUES (?, ?, ?)", {std::string("b"), std::string("t"), int64_t{1}}).ok());
  ASSERT_TRUE((*tx)->Commit().ok());
  auto check = store_->Begin();
  ASSERT_TRUE(check.ok());
  auto rows = (*check)->Query("SELECT COUNT(*) FROM flows", {});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(AsInt(rows->at(0).at(0)), 1);
}

}  // namespace
}  // namespace idem::testing
