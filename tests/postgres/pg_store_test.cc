// The PostgreSQL store: the shared conformance suite, then what only a server
// backend has — lost connections, server-side errors and their Status codes.
#include <gtest/gtest.h>

#include <thread>

#include "conformance/store_conformance.h"
#include "idem/postgres_store.h"
#include "idem/store_access.h"
#include "postgres/pg_test_support.h"
#include "testing/claim_races.h"
#include "testing/consumer_group.h"

namespace idem::testing {
namespace {

StoreFactory PostgresFactory() {
  return StoreFactory{"postgres", &FreshSchemaUrlOrSkip,
                      [](const std::string& url, Env*) { return OpenPgStoreOrFail(url); }};
}

INSTANTIATE_TEST_SUITE_P(Postgres, StoreConformance, ::testing::Values(PostgresFactory()),
                         [](const auto& info) { return info.param.name; });

class PgStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (PostgresTestUrl().empty()) GTEST_SKIP() << kNoPostgres;
    url_ = FreshSchemaUrl();
    ASSERT_FALSE(url_.empty());
    store_ = OpenPgStoreOrFail(url_);
    ASSERT_NE(store_, nullptr);
  }

  // The server process id behind a store's connection.
  int64_t BackendPid(Store& store) {
    auto tx = store.Begin();
    EXPECT_TRUE(tx.ok()) << tx.status().ToString();
    if (!tx.ok()) return 0;
    auto rows = (*tx)->Query("SELECT pg_backend_pid()", {});
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() ? AsInt((*rows)[0][0]) : 0;
  }

  static bool WaitsForLock(int64_t pid) {
    return MaintenanceInt("SELECT COUNT(*) FROM pg_stat_activity WHERE pid = " + std::to_string(pid) +
                          " AND wait_event_type = 'Lock'") == 1;
  }

  void KillBackend(int64_t pid) {
    ASSERT_TRUE(RunMaintenanceSql("SELECT pg_terminate_backend(" + std::to_string(pid) + ")"));
  }

  // Rows in the test table t, read in a transaction of its own (-1 on failure).
  int64_t RowsOfT() {
    auto check = store_->Begin();
    if (!check.ok()) return -1;
    auto rows = (*check)->Query("SELECT COUNT(*) FROM t", {});
    return rows.ok() ? AsInt((*rows)[0][0]) : -1;
  }

  std::string url_;
  std::unique_ptr<Store> store_;
};

TEST_F(PgStoreTest, OpenStoreRoutesPostgresUrls) {
  auto s = OpenStore(url_, Env::Default());
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ((*s)->Dialect().Name(), "postgres");
}

TEST_F(PgStoreTest, ManyConsumersOpeningOneFreshDatabaseAtOnceAllSucceed) {
  const std::string url = FreshSchemaUrl();
  std::vector<std::thread> threads;
  std::atomic<int> opened{0};
  for (int i = 0; i < 6; ++i)
    threads.emplace_back([&] {
      auto s = OpenPostgresStore(url, {}, Env::Default());
      if (s.ok()) opened++;
      else ADD_FAILURE() << s.status().ToString();
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(opened.load(), 6);
}

TEST_F(PgStoreTest, ANewerSchemaIsRefusedWithAdvice) {
  ASSERT_TRUE(store_->ExecScript("UPDATE idem_schema SET version = 99").ok());
  auto s = OpenPostgresStore(url_, {}, Env::Default());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("upgrade idem"), std::string::npos) << s.status().ToString();
}

// Read-only commands and the readiness probe open with StoreAccess::kExisting:
// a database without idem's tables is refused, and stays without them.
TEST_F(PgStoreTest, AnOpenWithoutCreateRefusesADatabaseWithoutIdemTablesAndCreatesNone) {
  const std::string empty = FreshSchemaUrl();
  for (int attempt = 0; attempt < 2; ++attempt) {  // the second finds no table the first could have made
    auto s = OpenStore(empty, Env::Default(), StoreAccess::kExisting);
    ASSERT_FALSE(s.ok());
    EXPECT_TRUE(s.status().IsNotFound()) << s.status().ToString();
    EXPECT_NE(s.status().message().find("is not an idem store (no idem_records table): check the store URL"),
              std::string::npos)
        << s.status().ToString();
  }
  auto existing = OpenStore(url_, Env::Default(), StoreAccess::kExisting);
  ASSERT_TRUE(existing.ok()) << existing.status().ToString();
  auto r = (*existing)->ReadRecord("g", "k");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->has_value());
}

TEST_F(PgStoreTest, UnreachableServerIsRetryableAndSaysWhatToCheck) {
  // Port 1 on the loopback: nothing listens there, so the refusal is immediate.
  auto s = OpenPostgresStore("postgresql://idem@127.0.0.1:1/idem_test", {}, Env::Default());
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.status().IsRetryable()) << s.status().ToString();
  EXPECT_NE(s.status().message().find("check that the server runs"), std::string::npos) << s.status().ToString();
}

TEST_F(PgStoreTest, ConnectionLostBetweenTransactionsIsReopenedTransparently) {
  KillBackend(BackendPid(*store_));
  auto tx = store_->Begin();
  ASSERT_TRUE(tx.ok()) << tx.status().ToString();
  auto rows = (*tx)->Query("SELECT 1", {});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(AsInt((*rows)[0][0]), 1);
}

TEST_F(PgStoreTest, ConnectionLostInsideATransactionIsRetryableThenTheStoreRecovers) {
  const int64_t pid = BackendPid(*store_);
  {
    auto tx = store_->Begin();
    ASSERT_TRUE(tx.ok());
    std::vector<ClaimRequest> reqs{{"k", "fp", "m1"}};
    ASSERT_TRUE((*tx)->Claim("g", reqs, 1, 2).ok());
    KillBackend(pid);
    auto r = (*tx)->Exec("UPDATE idem_records SET attempts = 5", {});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), Status::Code::kUnavailable) << r.status().ToString();
  }
  auto rec = store_->ReadRecord("g", "k");
  ASSERT_TRUE(rec.ok()) << rec.status().ToString();
  EXPECT_FALSE(rec->has_value()) << "the claim was never committed";
}

// A deferred trigger terminates the session while COMMIT runs: the answer to
// COMMIT is lost, so the store must say "in doubt", never "failed".
TEST_F(PgStoreTest, ConnectionLostDuringCommitIsInDoubtAndTheRecordTellsTheOutcome) {
  ASSERT_TRUE(store_->ExecScript("CREATE TABLE effects (key TEXT NOT NULL)").ok());
  LoseTheFirstCommitIntoEffects(*store_);
  auto tx = store_->Begin();
  ASSERT_TRUE(tx.ok());
  std::vector<ClaimRequest> reqs{{"k", "fp", "m1"}};
  ASSERT_TRUE((*tx)->Claim("g", reqs, 1, 2).ok());
  ASSERT_TRUE((*tx)->Complete("g", "k", RecordStatus::kSucceeded, "", "ok", 3).ok());
  ASSERT_TRUE((*tx)->Exec("INSERT INTO effects (key) VALUES (?)", {std::string("k")}).ok());
  Status s = (*tx)->Commit();
  EXPECT_TRUE(s.IsInDoubt()) << s.ToString();
  // Re-reading reconnects; the record and the effect landed together or not at all.
  auto rec = store_->ReadRecord("g", "k");
  ASSERT_TRUE(rec.ok()) << rec.status().ToString();
  auto check = store_->Begin();
  ASSERT_TRUE(check.ok());
  auto effects = (*check)->Query("SELECT COUNT(*) FROM effects", {});
  ASSERT_TRUE(effects.ok());
  EXPECT_EQ(AsInt((*effects)[0][0]), rec->has_value() ? 1 : 0);
}

// Worker B's claim of a key worker A holds waits for A, then reports what A
// decided (testing/claim_races.h).
TEST_F(PgStoreTest, AClaimThatWaitedForAnotherWorkerReportsWhatThatWorkerDecided) {
  auto other = OpenPgStoreOrFail(url_);
  ASSERT_NE(other, nullptr);
  const int64_t other_pid = BackendPid(*other);
  ExpectAWaitingClaimReportsTheOtherWorkersDecision(*store_, *other, [&] { return WaitsForLock(other_pid); });
}

TEST_F(PgStoreTest, TwoWorkersRetryingOneReleasedKeyNeverBothTakeItOver) {
  auto other = OpenPgStoreOrFail(url_);
  ASSERT_NE(other, nullptr);
  const int64_t other_pid = BackendPid(*other);
  ExpectTwoWorkersRetryingOneReleasedKeyNeverBothTakeItOver(*store_, *other,
                                                            [&] { return WaitsForLock(other_pid); });
}

// Two batches that both wait in their claims for a third batch's new record,
// and then find it finished, both commit: no deadlock, no rerun
// (testing/claim_races.h).
TEST_F(PgStoreTest, TwoBatchesMeetingAKeyFinishedMidClaimBothCommitWithoutADeadlock) {
  const std::string gate =
      "CREATE TABLE claim_gates (n INT PRIMARY KEY); INSERT INTO claim_gates VALUES (1); "
      "CREATE FUNCTION claim_gate() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
      "IF NEW.message_id = 'gate-1' THEN PERFORM 1 FROM claim_gates WHERE n = 1 FOR SHARE; END IF; "
      "RETURN NEW; END $$; "
      "CREATE TRIGGER claim_gate BEFORE INSERT ON idem_records FOR EACH ROW EXECUTE FUNCTION claim_gate()";
  auto waits_for = [](int64_t waiter, const std::string&, int64_t holder) {
    return MaintenanceInt("SELECT COUNT(*) FROM pg_stat_activity WHERE pid = " + std::to_string(waiter) + " AND " +
                          std::to_string(holder) + " = ANY(pg_blocking_pids(pid))") == 1;
  };
  ExpectTwoBatchesMeetingAKeyFinishedMidClaimBothCommit([&] { return OpenPgStoreOrFail(url_); }, gate,
                                                        [&](Store& s) { return BackendPid(s); }, waits_for);
}

TEST_F(PgStoreTest, DeadlockIsATransactionConflictSoTheBatchIsRerun) {
  ASSERT_TRUE(store_->ExecScript("CREATE TABLE rows2 (id INT PRIMARY KEY, v INT); "
                                 "INSERT INTO rows2 VALUES (1, 0), (2, 0)")
                  .ok());
  auto other = OpenPgStoreOrFail(url_);
  ASSERT_NE(other, nullptr);
  auto a = store_->Begin();
  auto b = other->Begin();
  ASSERT_TRUE(a.ok() && b.ok());
  // A short deadlock_timeout keeps the test quick; setting it needs a superuser.
  for (auto* tx : {&a, &b})
    if (!(**tx)->Exec("SET LOCAL deadlock_timeout = '20ms'", {}).ok())
      GTEST_SKIP() << "the test database user cannot SET deadlock_timeout (not a superuser)";
  ASSERT_TRUE((*a)->Exec("UPDATE rows2 SET v = 1 WHERE id = 1", {}).ok());
  ASSERT_TRUE((*b)->Exec("UPDATE rows2 SET v = 1 WHERE id = 2", {}).ok());
  // Each side rolls back as soon as its statement returns: the victim's locks
  // last until then, and the survivor is waiting for them.
  Status from_a;
  std::thread t([&] {
    from_a = (*a)->Exec("UPDATE rows2 SET v = 2 WHERE id = 2", {}).status();
    (*a)->Rollback();
  });
  Status from_b = (*b)->Exec("UPDATE rows2 SET v = 2 WHERE id = 1", {}).status();
  (*b)->Rollback();
  t.join();
  const Status& loser = from_a.ok() ? from_b : from_a;
  EXPECT_TRUE(loser.IsTransactionConflict()) << loser.ToString();
  EXPECT_NE(loser.message().find("40P01"), std::string::npos) << loser.ToString();
  EXPECT_TRUE(loser.IsRetryable());
  EXPECT_TRUE(from_a.ok() != from_b.ok()) << "exactly one side is the deadlock victim";
}

TEST_F(PgStoreTest, ValuesMapToTheirPostgresTypesAndBack) {
  ASSERT_TRUE(store_->ExecScript("CREATE TABLE v (b BYTEA, f BOOLEAN, n NUMERIC(20,2), i INT)").ok());
  auto tx = store_->Begin();
  ASSERT_TRUE(tx.ok());
  const std::string bytes("\0\x01\xff'\\", 5);
  ASSERT_TRUE((*tx)->Exec("INSERT INTO v VALUES (?, ?, ?, ?)", {Blob{bytes}, std::string("true"), 12.5, int64_t{7}})
                  .ok());
  auto rows = (*tx)->Query("SELECT b, f, n, i, SUM(i::BIGINT) OVER () FROM v", {});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  const Row& r = (*rows)[0];
  ASSERT_TRUE(std::holds_alternative<Blob>(r[0]));
  EXPECT_EQ(std::get<Blob>(r[0]).bytes, bytes);
  EXPECT_EQ(AsInt(r[1]), 1);
  EXPECT_DOUBLE_EQ(std::get<double>(r[2]), 12.5);
  EXPECT_EQ(std::get<int64_t>(r[3]), 7);
  EXPECT_EQ(std::get<int64_t>(r[4]), 7) << "integral numeric (SUM of integers) reads as an integer";
}

TEST_F(PgStoreTest, APreparedStatementSurvivesAMigrationOfItsTable) {
  ASSERT_TRUE(store_->ExecScript("CREATE TABLE m (a INT); INSERT INTO m VALUES (1)").ok());
  auto read = [&] {
    auto tx = store_->Begin();
    EXPECT_TRUE(tx.ok());
    auto rows = (*tx)->Query("SELECT * FROM m", {});
    return rows.ok() ? static_cast<int>(rows->at(0).size()) : -1;
  };
  EXPECT_EQ(read(), 1);
  ASSERT_TRUE(RunMaintenanceSql("ALTER TABLE " + std::string(url_.substr(url_.rfind("%3D") + 3)) +
                                ".m ADD COLUMN b INT DEFAULT 2"));
  int columns = read();  // may fail once: the cached plan's result type changed
  if (columns == -1) columns = read();
  EXPECT_EQ(columns, 2);
}

TEST_F(PgStoreTest, MisuseIsReportedNotSentToTheServer) {
  auto tx = store_->Begin();
  ASSERT_TRUE(tx.ok());
  auto nul = (*tx)->Query("SELECT ?", {std::string("a\0b", 3)});
  EXPECT_EQ(nul.status().code(), Status::Code::kInvalidArgument) << nul.status().ToString();
  auto count = (*tx)->Query("SELECT ?, ?", {int64_t{1}});
  EXPECT_EQ(count.status().code(), Status::Code::kInvalidArgument) << count.status().ToString();
  EXPECT_NE(count.status().message().find("2 placeholders but 1 values"), std::string::npos);
  auto second = store_->Begin();
  EXPECT_FALSE(second.ok()) << "one connection holds one transaction at a time";
}

TEST_F(PgStoreTest, ACommitAfterAnIgnoredErrorSavesNothingAndSaysSo) {
  auto tx = store_->Begin();
  ASSERT_TRUE(tx.ok());
  std::vector<ClaimRequest> reqs{{"k", "fp", "m1"}};
  ASSERT_TRUE((*tx)->Claim("g", reqs, 1, 2).ok());
  EXPECT_FALSE((*tx)->Exec("SELECT * FROM no_such_table", {}).ok());
  Status s = (*tx)->Commit();
  EXPECT_FALSE(s.ok());
  EXPECT_FALSE(s.IsInDoubt()) << s.ToString();
  auto rec = store_->ReadRecord("g", "k");
  ASSERT_TRUE(rec.ok());
  EXPECT_FALSE(rec->has_value());
}

// SAVEPOINT and RELEASE travel with the next statement: one that fails still
// fails that statement, naming itself, and nothing of the transaction is saved.
TEST_F(PgStoreTest, ADeferredReleaseThatFailsFailsTheNextStatementAndTheTransaction) {
  ASSERT_TRUE(store_->ExecScript("CREATE TABLE t (v INTEGER)").ok());
  auto tx = store_->Begin();
  ASSERT_TRUE(tx.ok());
  ASSERT_TRUE((*tx)->Savepoint("idem_msg").ok());
  ASSERT_TRUE((*tx)->Exec("INSERT INTO t (v) VALUES (1)", {}).ok());
  ASSERT_TRUE((*tx)->Release("idem_msg").ok());
  EXPECT_TRUE((*tx)->Release("never_opened").ok());  // deferred: nothing was sent yet
  auto n = (*tx)->Exec("INSERT INTO t (v) VALUES (2)", {});
  ASSERT_FALSE(n.ok());
  EXPECT_NE(n.status().message().find("never_opened"), std::string::npos) << n.status().ToString();
  EXPECT_FALSE((*tx)->Commit().ok());
  EXPECT_EQ(RowsOfT(), 0);
}

// A handler's first run of a statement prepares it after the handler's
// deferred SAVEPOINT: one that fails to prepare (a missing table) fails inside
// the savepoint and rolls back to it, one message's worth, and the rest of the
// batch commits. (Sent ahead of the SAVEPOINT, the failing PREPARE aborted the
// whole transaction: the savepoint never existed to roll back to.)
TEST_F(PgStoreTest, AStatementThatFailsToPrepareRollsBackOnlyToItsSavepoint) {
  ASSERT_TRUE(store_->ExecScript("CREATE TABLE t (v INTEGER)").ok());
  auto tx = store_->Begin();
  ASSERT_TRUE(tx.ok());
  ASSERT_TRUE((*tx)->Exec("INSERT INTO t (v) VALUES (1)", {}).ok());
  ASSERT_TRUE((*tx)->Savepoint("idem_msg").ok());
  auto bad = (*tx)->Exec("INSERT INTO no_such_table (v) VALUES (?)", {int64_t{2}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("no_such_table"), std::string::npos) << bad.status().ToString();
  Status back = (*tx)->RollbackTo("idem_msg");
  ASSERT_TRUE(back.ok()) << back.ToString();
  ASSERT_TRUE((*tx)->Release("idem_msg").ok());
  ASSERT_TRUE((*tx)->Savepoint("idem_msg").ok());
  ASSERT_TRUE((*tx)->Exec("INSERT INTO t (v) VALUES (?)", {int64_t{3}}).ok());  // prepared inside it, and kept
  ASSERT_TRUE((*tx)->Release("idem_msg").ok());
  Status s = (*tx)->Commit();
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(RowsOfT(), 2);
}

// A savepoint rolled back with nothing run in between: both go out together.
TEST_F(PgStoreTest, ASavepointRolledBackAtOnceKeepsEarlierWork) {
  ASSERT_TRUE(store_->ExecScript("CREATE TABLE t (v INTEGER)").ok());
  auto tx = store_->Begin();
  ASSERT_TRUE(tx.ok());
  ASSERT_TRUE((*tx)->Exec("INSERT INTO t (v) VALUES (1)", {}).ok());
  ASSERT_TRUE((*tx)->Savepoint("idem_msg").ok());
  ASSERT_TRUE((*tx)->RollbackTo("idem_msg").ok());
  ASSERT_TRUE((*tx)->Release("idem_msg").ok());
  ASSERT_TRUE((*tx)->Commit().ok());
  EXPECT_EQ(RowsOfT(), 1);
}

}  // namespace
}  // namespace idem::testing
