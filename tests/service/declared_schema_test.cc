// A declarative step naming a table or a column the store does not have, or a
// column of a type the step cannot use, refuses the start: `idem run` exits 2
// with the step's FILE:LINE:COLUMN before any worker takes a message, and
// `idem run --check FILE --connect` says the same without starting. Judged
// from the exit code, the output, the queue (every message still there, none
// dead-lettered) and the store (no record, no effect). On SQLite.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "idem/embedded_queue.h"
#include "idem/store.h"
#include "testing/test_util.h"
#include "integration/run_idem.h"

namespace idem {
namespace {

using testing::Idem;
using testing::TempDir;

constexpr int kMessages = 3;

// The tables setup_sql creates: the ledger and the accounts the handler moves money between.
constexpr const char* kSetupSql =
    "CREATE TABLE IF NOT EXISTS ledger (pay_id TEXT NOT NULL UNIQUE, amount BIGINT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS accounts (owner TEXT PRIMARY KEY, balance BIGINT NOT NULL, note TEXT);"
    "INSERT INTO accounts VALUES ('u1', 1000, 'x') ON CONFLICT DO NOTHING;";

// A configuration whose one handler runs `steps` (TOML of [[consumer.handler.step]] tables).
// Line numbers matter: the steps start on line 15.
std::string WriteConfig(const TempDir& dir, const std::string& steps, const std::string& setup_sql = kSetupSql) {
  const std::string path = dir.File("pay.toml");
  std::ofstream(path) << "[broker]\n"                                           // 1
                      << "url = \"queue:" << dir.File("q.db") << "\"\n"          // 2
                      << "[store]\n"                                            // 3
                      << "url = \"sqlite:" << dir.File("s.db") << "\"\n"         // 4
                      << "setup_sql = \"" << setup_sql << "\"\n"                // 5
                      << "[[consumer]]\n"                                       // 6
                      << "group = \"payments\"\n"                               // 7
                      << "batch_size = 10\n"                                    // 8
                      << "max_linger_ms = 0\n"                                  // 9
                      << "retry_delays_ms = [0]\n"                              // 10
                      << "max_attempts = 1\n"                                   // 11
                      << "[[consumer.handler]]\n"                               // 12
                      << "topic = \"pay\"\n"                                    // 13
                      << "key = [\"pay_id\"]\n"                                 // 14
                      << steps;
  return path;
}

// The ledger row, then the debit: what a correct configuration does.
constexpr const char* kInsert =
    "[[consumer.handler.step]]\n"                                  // 15
    "insert_once = \"ledger\"\n"                                   // 16
    "columns = { pay_id = \"pay_id\", amount = \"amount\" }\n";     // 17
std::string Debit(const std::string& table, const std::string& balance_column) {
  return "[[consumer.handler.step]]\n"                             // 18
         "change_balance = \"" + table + "\"\n"                    // 19
         "key_column = \"owner\"\n"
         "balance_column = \"" + balance_column + "\"\n"
         "key = \"owner\"\n"
         "subtract = \"amount\"\n";
}

void Publish(const TempDir& dir) {
  auto queue = EmbeddedQueue::Open(dir.File("q.db"), {}, Env::Default());
  ASSERT_TRUE(queue.ok()) << queue.status().ToString();
  std::vector<Message> batch;
  for (int i = 0; i < kMessages; ++i) {
    Message m;
    m.topic = "pay";
    m.payload = R"({"pay_id":"P)" + std::to_string(i) + R"(","owner":"u1","amount":10})";
    batch.push_back(m);
  }
  ASSERT_TRUE((*queue)->PublishBatch(batch).ok());
}

QueueStats Queue(const TempDir& dir) {
  auto queue = EmbeddedQueue::Open(dir.File("q.db"), {}, Env::Default());
  EXPECT_TRUE(queue.ok()) << queue.status().ToString();
  auto stats = (*queue)->Stats();
  EXPECT_TRUE(stats.ok()) << stats.status().ToString();
  return *stats;
}

int64_t Count(const TempDir& dir, const std::string& sql) {
  auto store = OpenSqliteStore(dir.File("s.db"), {}, Env::Default());
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return testing::QueryInt(**store, sql);
}

// The JSON log line of `event`, or null.
nlohmann::json LogLine(const std::string& out, const std::string& event) {
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_object() && j.value("event", "") == event) return j;
  }
  return nullptr;
}

// `idem run` refuses with exit 2 and `says`, logged at error, and the queue
// and the store are as they were: every message ready, none taken, acked or
// dead-lettered, no record written.
void ExpectRefusedTakingNothing(const TempDir& dir, const std::string& config, const std::string& says) {
  Publish(dir);
  const testing::ProcessResult run = Idem({"run", "--config", config, "--until-idle"});
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_NE(run.err.find(says), std::string::npos) << run.err;
  const nlohmann::json refused = LogLine(run.out, "start_failed");
  ASSERT_TRUE(refused.is_object()) << run.out;
  EXPECT_EQ(refused.value("level", ""), "error");
  EXPECT_NE(refused.value("error", "").find(says), std::string::npos) << refused.dump();
  EXPECT_TRUE(LogLine(run.out, "worker_started").is_null()) << run.out;
  const QueueStats q = Queue(dir);
  EXPECT_EQ(q.ready, kMessages);
  EXPECT_EQ(q.in_flight, 0);
  EXPECT_EQ(q.delayed, 0);
  EXPECT_EQ(q.dead, 0);
  EXPECT_EQ(Count(dir, "SELECT COUNT(*) FROM idem_records"), 0);
  EXPECT_EQ(Count(dir, "SELECT COUNT(*) FROM ledger"), 0);

  // --check --connect says the same, without starting; plain --check stays offline and passes.
  const testing::ProcessResult check = Idem({"run", "--check", config, "--connect"});
  EXPECT_EQ(check.exit_code, 2) << check.out << check.err;
  EXPECT_NE(check.err.find(says), std::string::npos) << check.err;
  const testing::ProcessResult offline = Idem({"run", "--check", config});
  EXPECT_EQ(offline.exit_code, 0) << offline.out << offline.err;
  EXPECT_EQ(Queue(dir).ready, kMessages);
}

TEST(DeclaredSchemaTest, MissingTableRefusesTheStartAtTheStep) {
  TempDir dir;
  const std::string config = WriteConfig(dir, std::string(kInsert) + Debit("acounts", "balance"));
  ExpectRefusedTakingNothing(dir, config,
                             dir.File("pay.toml") + ":18:1: step 2 of topic \"pay\" (change_balance): table \"acounts\" "
                             "does not exist in the store: create it (a CREATE TABLE IF NOT EXISTS in [store] "
                             "setup_sql runs before this check) or correct change_balance = \"acounts\"");
}

TEST(DeclaredSchemaTest, MissingColumnRefusesTheStartAndListsTheColumns) {
  TempDir dir;
  const std::string config = WriteConfig(dir, std::string(kInsert) + Debit("accounts", "balanse"));
  ExpectRefusedTakingNothing(dir, config,
                             dir.File("pay.toml") + ":18:1: step 2 of topic \"pay\" (change_balance): table "
                             "\"accounts\" has no column \"balanse\" (balance_column); its columns are owner, "
                             "balance, note: correct balance_column or add the column");
}

TEST(DeclaredSchemaTest, MissingInsertColumnRefusesTheStart) {
  TempDir dir;
  const std::string config = WriteConfig(dir,
                                         "[[consumer.handler.step]]\n"
                                         "insert_once = \"ledger\"\n"
                                         "columns = { pay_id = \"pay_id\", amount_cents = \"amount\" }\n");
  ExpectRefusedTakingNothing(dir, config,
                             dir.File("pay.toml") + ":15:1: step 1 of topic \"pay\" (insert_once): table \"ledger\" "
                             "has no column \"amount_cents\" (columns.amount_cents)");
}

TEST(DeclaredSchemaTest, TextBalanceColumnRefusesTheStart) {
  TempDir dir;
  const std::string config = WriteConfig(dir, std::string(kInsert) + Debit("accounts", "note"));
  ExpectRefusedTakingNothing(dir, config,
                             dir.File("pay.toml") + ":18:1: step 2 of topic \"pay\" (change_balance): column \"note\" "
                             "of table \"accounts\" (balance_column) is TEXT; it must be a number column");
}

TEST(DeclaredSchemaTest, SqlStepOnAMissingTableRefusesTheStart) {
  TempDir dir;
  const std::string config = WriteConfig(dir,
                                         "[[consumer.handler.step]]\n"
                                         "sql = \"UPDATE acounts SET balance = balance - ? WHERE owner = ?\"\n"
                                         "params = [\"amount\", \"owner\"]\n"
                                         "expect_rows = 1\n");
  ExpectRefusedTakingNothing(dir, config,
                             dir.File("pay.toml") + ":15:1: step 1 of topic \"pay\" (sql): the statement does not "
                             "compile against the store (");
}

TEST(DeclaredSchemaTest, EveryProblemIsListedAtItsStep) {
  TempDir dir;
  const std::string config = WriteConfig(dir,
                                         "[[consumer.handler.step]]\n"
                                         "insert_once = \"ledgr\"\n"
                                         "columns = { pay_id = \"pay_id\" }\n" +
                                             Debit("accounts", "balanse"));
  const testing::ProcessResult check = Idem({"run", "--check", config, "--connect"});
  EXPECT_EQ(check.exit_code, 2) << check.err;
  EXPECT_NE(check.err.find(":15:1: step 1 of topic \"pay\" (insert_once): table \"ledgr\" does not exist"),
            std::string::npos)
      << check.err;
  EXPECT_NE(check.err.find(":18:1: step 2 of topic \"pay\" (change_balance): table \"accounts\" has no column "
                           "\"balanse\""),
            std::string::npos)
      << check.err;
}

TEST(DeclaredSchemaTest, GoodConfigPassesTheCheckAndRuns) {
  TempDir dir;
  const std::string config = WriteConfig(dir, std::string(kInsert) + Debit("accounts", "balance"));
  Publish(dir);
  const testing::ProcessResult check = Idem({"run", "--check", config, "--connect"});
  ASSERT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("OK"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("2 declared step(s) match the store"), std::string::npos) << check.out;
  EXPECT_EQ(Queue(dir).ready, kMessages) << "the check took a message";

  const testing::ProcessResult run = Idem({"run", "--config", config, "--until-idle"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(Count(dir, "SELECT COUNT(*) FROM ledger"), kMessages);
  EXPECT_EQ(Count(dir, "SELECT balance FROM accounts WHERE owner = 'u1'"), 1000 - 10 * kMessages);
  const QueueStats q = Queue(dir);
  EXPECT_EQ(q.ready + q.in_flight + q.delayed + q.dead, 0);
}

}  // namespace
}  // namespace idem
