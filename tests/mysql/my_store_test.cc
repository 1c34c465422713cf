// The MySQL/MariaDB store: the shared conformance suite, then what only this
// server backend has — its error numbers, a deadlock that ends the whole
// transaction, lost connections and a lost COMMIT answer.
#include <gtest/gtest.h>

#include <thread>

#include "conformance/store_conformance.h"
#include "idem/mysql_store.h"
#include "idem/store_access.h"
#include "mysql/my_test_support.h"
#include "testing/claim_races.h"
#include "testing/consumer_group.h"

namespace idem::testing {
namespace {

StoreFactory MysqlFactory() {
  return StoreFactory{"mysql",
                      &FreshDatabaseUrlOrSkip,
                      [](const std::string& url, Env*) { return OpenMyStoreOrFail(url); }};
}

INSTANTIATE_TEST_SUITE_P(Mysql, StoreConformance, ::testing::Values(MysqlFactory()),
                         [](const auto& info) { return info.param.name; });

class MyStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (MysqlTestUrl().empty()) GTEST_SKIP() << kNoMysql;
    url_ = FreshDatabaseUrl();
    ASSERT_FALSE(url_.empty());
    store_ = OpenMyStoreOrFail(url_);
    ASSERT_NE(store_, nullptr);
  }

  // The server's id for a store's session.
  static bool Waiting(int64_t id) { return SessionWaitsForRowLock(id); }

  int64_t Count(const std::string& sql) { return AdminInt(sql, DatabaseOf(url_)); }

  std::string url_;
  std::unique_ptr<Store> store_;
};

TEST_F(MyStoreTest, OpenStoreRoutesMysqlAndMariadbUrls) {
  for (const std::string& url : {url_, "mariadb" + url_.substr(url_.find("://"))}) {
    auto s = OpenStore(url, Env::Default());
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    EXPECT_EQ((*s)->Dialect().Name(), "mysql");
  }
}

// Read-only commands and the readiness probe open with StoreAccess::kExisting:
// a database without idem's tables is refused, and stays without them.
TEST_F(MyStoreTest, AnOpenWithoutCreateRefusesADatabaseWithoutIdemTablesAndCreatesNone) {
  const std::string empty = FreshDatabaseUrl();
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

TEST_F(MyStoreTest, ManyConsumersOpeningOneFreshDatabaseAtOnceAllSucceed) {
  const std::string url = FreshDatabaseUrl();
  std::vector<std::thread> threads;
  std::atomic<int> opened{0};
  for (int i = 0; i < 6; ++i)
    threads.emplace_back([&] {
      auto s = OpenMysqlStore(url, {}, Env::Default());
      if (s.ok()) opened++;
      else ADD_FAILURE() << s.status().ToString();
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(opened.load(), 6);
  EXPECT_EQ(AdminInt("SELECT COUNT(*) FROM idem_schema", DatabaseOf(url)), 1) << "stamped once";
}

TEST_F(MyStoreTest, ANewerSchemaIsRefusedWithAdvice) {
  ASSERT_TRUE(store_->ExecScript("UPDATE idem_schema SET version = 99").ok());
  auto s = OpenMysqlStore(url_, {}, Env::Default());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("upgrade idem"), std::string::npos) << s.status().ToString();
}

TEST_F(MyStoreTest, UnreachableServerIsRetryableAndSaysWhatToCheck) {
  // Port 1 on the loopback: nothing listens there, so the refusal is immediate.
  auto s = OpenMysqlStore("mysql://idem:secret@127.0.0.1:1/idem_test", {}, Env::Default());
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.status().IsRetryable()) << s.status().ToString();
  EXPECT_NE(s.status().message().find("check that the server runs"), std::string::npos) << s.status().ToString();
  EXPECT_EQ(s.status().message().find("secret"), std::string::npos) << "never the password";
}

TEST_F(MyStoreTest, AWrongPasswordIsPermanentAndSaysWhatToCheck) {
  std::string url = url_;
  url.replace(url.find(":idem@"), 6, ":wrong@");
  auto s = OpenMysqlStore(url, {}, Env::Default());
  ASSERT_FALSE(s.ok());
  EXPECT_FALSE(s.status().IsRetryable()) << s.status().ToString();
  EXPECT_NE(s.status().message().find("password"), std::string::npos) << s.status().ToString();
}

TEST_F(MyStoreTest, BadUrlsSayWhatToWrite) {
  for (const char* url : {"mysql://u:p@h:99999/db", "mysql://u:p@h:3306", "mysql://u:p@h/db?tls=on"}) {
    auto s = OpenMysqlStore(url, {}, Env::Default());
    ASSERT_FALSE(s.ok()) << url;
    EXPECT_EQ(s.status().code(), Status::Code::kInvalidArgument) << s.status().ToString();
    EXPECT_NE(s.status().message().find("mysql://USER:PASSWORD@HOST:PORT/DB"), std::string::npos)
        << s.status().ToString();
  }
}

TEST_F(MyStoreTest, ValuesMapToTheirMysqlTypesAndBack) {
  ASSERT_TRUE(store_->ExecScript("CREATE TABLE v (b BLOB, t TEXT, n DECIMAL(20,2), i INT, d DOUBLE, at DATETIME)")
                  .ok());
  auto tx = store_->Begin();
  ASSERT_TRUE(tx.ok());
  const std::string bytes("\0\x01\xff'\\", 5);
  const std::string long_text(100'000 / 2, 'x');
  ASSERT_TRUE((*tx)->Exec("INSERT INTO v VALUES (?, ?, ?, ?, ?, ?)",
                          {Blob{bytes}, long_text.substr(0, 60'000), 12.5, int64_t{7}, nullptr,
                           std::string("2026-12-01 10:00:01")})
                  .ok());
  auto rows = (*tx)->Query("SELECT b, t, n, i, SUM(i), d, at FROM v GROUP BY b, t, n, i, d, at", {});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  const Row& r = (*rows)[0];
  ASSERT_TRUE(std::holds_alternative<Blob>(r[0]));
  EXPECT_EQ(std::get<Blob>(r[0]).bytes, bytes);
  EXPECT_EQ(AsText(r[1]).size(), 50'000u);
  EXPECT_DOUBLE_EQ(std::get<double>(r[2]), 12.5);
  EXPECT_EQ(std::get<int64_t>(r[3]), 7);
  EXPECT_EQ(std::get<int64_t>(r[4]), 7) << "integral DECIMAL (SUM of integers) reads as an integer";
  EXPECT_TRUE(IsNull(r[5]));
  EXPECT_EQ(AsText(r[6]), "2026-12-01 10:00:01") << "dates read as text";
}

TEST_F(MyStoreTest, MisuseIsReportedNotSentToTheServer) {
  ASSERT_TRUE(store_->ExecScript("CREATE TABLE m (v INT)").ok());
  auto tx = store_->Begin();
  ASSERT_TRUE(tx.ok());
  ASSERT_TRUE((*tx)->Exec("INSERT INTO m VALUES (1)", {}).ok());
  auto count = (*tx)->Query("SELECT ?, ?", {int64_t{1}});
  EXPECT_EQ(count.status().code(), Status::Code::kInvalidArgument) << count.status().ToString();
  EXPECT_NE(count.status().message().find("2 placeholders but 1 values"), std::string::npos);
  // A second START TRANSACTION on the connection would commit the first one.
  auto second = store_->Begin();
  EXPECT_FALSE(second.ok()) << "one connection holds one transaction at a time";
  (*tx)->Rollback();
  EXPECT_EQ(Count("SELECT COUNT(*) FROM m"), 0) << "the first transaction was not committed behind its back";
}

TEST_F(MyStoreTest, AValueThatDoesNotFitIsAnErrorNotAWarning) {
  ASSERT_TRUE(store_->ExecScript("CREATE TABLE s (c VARCHAR(3) NOT NULL)").ok());
  auto tx = store_->Begin();
  ASSERT_TRUE(tx.ok());
  EXPECT_FALSE((*tx)->Exec("INSERT INTO s VALUES (?)", {std::string("abcdef")}).ok()) << "strict mode";
  EXPECT_FALSE((*tx)->Exec("INSERT INTO s VALUES (?)", {nullptr}).ok());
  auto rows = (*tx)->Query("SELECT COUNT(*) FROM s", {});
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(AsInt((*rows)[0][0]), 0);
}

// The claim inserts with INSERT IGNORE, which would truncate a key too long
// for the column into another key and report a warning only.
TEST_F(MyStoreTest, AClaimWhoseKeyDoesNotFitFailsInsteadOfClaimingATruncatedKey) {
  auto tx = store_->Begin();
  ASSERT_TRUE(tx.ok());
  std::vector<ClaimRequest> reqs{{std::string(600, 'k'), "fp", "m1"}, {"short", "fp", "m1"}};
  auto c = (*tx)->Claim("g", reqs, 1, 2);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("warnings"), std::string::npos) << c.status().ToString();
  EXPECT_NE(c.status().message().find("1265"), std::string::npos) << c.status().ToString();
  (*tx)->Rollback();
  EXPECT_EQ(Count("SELECT COUNT(*) FROM idem_records"), 0);
}

TEST_F(MyStoreTest, ConnectionLostBetweenTransactionsIsReopenedTransparently) {
  ASSERT_TRUE(RunAdminSql("KILL CONNECTION " + std::to_string(SessionId(*store_))));
  auto tx = store_->Begin();
  ASSERT_TRUE(tx.ok()) << tx.status().ToString();
  auto rows = (*tx)->Query("SELECT 1", {});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(AsInt((*rows)[0][0]), 1);
}

TEST_F(MyStoreTest, ConnectionLostInsideATransactionIsRetryableAndNothingRunsOutsideIt) {
  const int64_t id = SessionId(*store_);
  {
    auto tx = store_->Begin();
    ASSERT_TRUE(tx.ok());
    std::vector<ClaimRequest> reqs{{"k", "fp", "m1"}};
    ASSERT_TRUE((*tx)->Claim("g", reqs, 1, 2).ok());
    ASSERT_TRUE(RunAdminSql("KILL CONNECTION " + std::to_string(id)));
    auto r = (*tx)->Exec("UPDATE idem_records SET attempts = 5", {});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), Status::Code::kUnavailable) << r.status().ToString();
    EXPECT_FALSE((*tx)->Complete("g", "k", RecordStatus::kSucceeded, "", "", 3).ok());
    EXPECT_FALSE((*tx)->Commit().ok());
  }
  auto rec = store_->ReadRecord("g", "k");
  ASSERT_TRUE(rec.ok()) << rec.status().ToString();
  EXPECT_FALSE(rec->has_value()) << "the claim was never committed";
}

// MySQL rolls a deadlock victim's whole transaction back, savepoints included,
// and would run its next statements outside any transaction. The store must say
// TransactionConflict and refuse them, so the batch is rerun from the start
// instead of half of it autocommitting.
TEST_F(MyStoreTest, ADeadlockEndsTheWholeTransactionAndLaterStatementsAreRefused) {
  ASSERT_TRUE(store_->ExecScript("CREATE TABLE rows2 (id INT PRIMARY KEY, v INT); "
                                 "INSERT INTO rows2 VALUES (1, 0), (2, 0); CREATE TABLE after_deadlock (v INT)")
                  .ok());
  auto other = OpenMyStoreOrFail(url_);
  ASSERT_NE(other, nullptr);
  const int64_t a_id = SessionId(*store_);
  auto a = store_->Begin();
  auto b = other->Begin();
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE((*a)->Savepoint("idem_msg").ok());
  ASSERT_TRUE((*a)->Exec("UPDATE rows2 SET v = 1 WHERE id = 1", {}).ok());
  ASSERT_TRUE((*b)->Exec("UPDATE rows2 SET v = 1 WHERE id = 2", {}).ok());
  // InnoDB rolls back the transaction that changed fewer rows: make that A,
  // the one with a savepoint and later statements to refuse.
  for (int i = 0; i < 10; ++i) ASSERT_TRUE((*b)->Exec("INSERT INTO after_deadlock VALUES (?)", {int64_t{i}}).ok());
  Status from_a;
  std::thread t([&] { from_a = (*a)->Exec("UPDATE rows2 SET v = 2 WHERE id = 2", {}).status(); });
  EXPECT_TRUE(WaitFor([&] { return Waiting(a_id); }, 10'000)) << "A never waited for B";
  // B closes the cycle; InnoDB picks a victim at once (it detects deadlocks eagerly).
  Status from_b = (*b)->Exec("UPDATE rows2 SET v = 2 WHERE id = 1", {}).status();
  if (!from_b.ok()) (*b)->Rollback();
  t.join();
  ASSERT_TRUE(from_b.ok()) << "B changed more rows, so A is the victim: " << from_b.ToString();
  EXPECT_TRUE(from_a.IsTransactionConflict()) << from_a.ToString();
  EXPECT_TRUE(from_a.IsRetryable());
  EXPECT_NE(from_a.message().find("1213"), std::string::npos) << from_a.ToString();
  Status rb = (*a)->RollbackTo("idem_msg");
  EXPECT_TRUE(rb.IsTransactionConflict()) << "the savepoint is gone with the transaction: " << rb.ToString();
  auto later = (*a)->Exec("INSERT INTO after_deadlock VALUES (100)", {});
  EXPECT_TRUE(later.status().IsTransactionConflict()) << later.status().ToString();
  EXPECT_TRUE((*a)->Commit().IsTransactionConflict());
  (*b)->Rollback();
  EXPECT_EQ(Count("SELECT COUNT(*) FROM after_deadlock"), 0) << "nothing ran outside the transaction";
}

// Commits are held by BACKUP STAGE BLOCK_COMMIT in an admin session; while
// the store's COMMIT waits for it, the admin kills the store's session. The
// COMMIT's answer is lost: the store must say "in doubt", never "failed", and
// the record and the effect landed together or not at all.
TEST_F(MyStoreTest, ConnectionKilledDuringCommitIsInDoubtAndTheRecordTellsTheOutcome) {
  ASSERT_TRUE(store_->ExecScript("CREATE TABLE effects (k VARCHAR(64) NOT NULL)").ok());
  const int64_t id = SessionId(*store_);
  auto tx = store_->Begin();
  ASSERT_TRUE(tx.ok());
  std::vector<ClaimRequest> reqs{{"k", "fp", "m1"}};
  ASSERT_TRUE((*tx)->Claim("g", reqs, 1, 2).ok());
  ASSERT_TRUE((*tx)->Complete("g", "k", RecordStatus::kSucceeded, "", "ok", 3).ok());
  ASSERT_TRUE((*tx)->Exec("INSERT INTO effects (k) VALUES (?)", {std::string("k")}).ok());
  AdminSession admin;
  ASSERT_TRUE(admin.Run("BACKUP STAGE START"));
  ASSERT_TRUE(admin.Run("BACKUP STAGE BLOCK_COMMIT"));
  Status commit;
  std::thread committer([&] { commit = (*tx)->Commit(); });
  const bool waited = WaitUntilSessionRunsCommit(id, 10'000);
  EXPECT_TRUE(waited) << "the COMMIT never reached the server";
  EXPECT_TRUE(admin.Run("KILL CONNECTION " + std::to_string(id)));
  committer.join();
  EXPECT_TRUE(admin.Run("BACKUP STAGE END"));
  EXPECT_TRUE(commit.IsInDoubt()) << commit.ToString();
  // Re-reading reconnects; the record and the effect landed together or not at all.
  auto rec = store_->ReadRecord("g", "k");
  ASSERT_TRUE(rec.ok()) << rec.status().ToString();
  EXPECT_EQ(Count("SELECT COUNT(*) FROM effects"), rec->has_value() ? 1 : 0);
}

// Worker B's claim of a key worker A holds waits for A, then reports what A
// decided (testing/claim_races.h).
TEST_F(MyStoreTest, AClaimThatWaitedForAnotherWorkerReportsWhatThatWorkerDecided) {
  auto other = OpenMyStoreOrFail(url_);
  ASSERT_NE(other, nullptr);
  const int64_t other_id = SessionId(*other);
  ExpectAWaitingClaimReportsTheOtherWorkersDecision(*store_, *other, [&] { return Waiting(other_id); });
}

TEST_F(MyStoreTest, TwoWorkersRetryingOneReleasedKeyNeverBothTakeItOver) {
  auto other = OpenMyStoreOrFail(url_);
  ASSERT_NE(other, nullptr);
  const int64_t other_id = SessionId(*other);
  ExpectTwoWorkersRetryingOneReleasedKeyNeverBothTakeItOver(*store_, *other, [&] { return Waiting(other_id); });
}

// Two batches that both wait in their claims for a third batch's new record,
// and then find it finished, both commit: no deadlock, no rerun
// (testing/claim_races.h). Under four workers this was the MySQL store's rerun.
TEST_F(MyStoreTest, TwoBatchesMeetingAKeyFinishedMidClaimBothCommitWithoutADeadlock) {
  const std::string gate =
      "CREATE TABLE claim_gates (n INT PRIMARY KEY); INSERT INTO claim_gates VALUES (1); "
      "CREATE TRIGGER claim_gate BEFORE INSERT ON idem_records FOR EACH ROW BEGIN DECLARE held INT; "
      "IF NEW.message_id = 'gate-1' THEN SELECT n INTO held FROM claim_gates WHERE n = 1 LOCK IN SHARE MODE; "
      "END IF; END";
  // Told by the table of the row it waits for: INNODB_LOCK_WAITS lags behind
  // and names no waiter that has written nothing yet.
  auto waits_for = [](int64_t waiter, const std::string& table, int64_t) { return SessionWaitsForRowOf(waiter, table); };
  ExpectTwoBatchesMeetingAKeyFinishedMidClaimBothCommit([&] { return OpenMyStoreOrFail(url_); }, gate, &SessionId,
                                                        waits_for);
}

}  // namespace
}  // namespace idem::testing
