// One workload — the payments business with events out of order and producer
// resends — through the C++ payments handlers and through the same handlers
// declared in a configuration file (payments_declarative.toml): the two
// databases end with identical ledgers, balances, orders, stock, points and
// notices, and the same dead letters.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "idem/embedded_queue.h"
#include "payments/schema.h"
#include "payments/workload.h"
#include "service/running_idem.h"
#include "testing/test_util.h"

namespace idem {
namespace {

using testing::RunningIdem;
using testing::TempDir;

constexpr const char* kConsumerCpp = R"(
[[consumer]]
group = "payments"
workers = 1
batch_size = 25
max_linger_ms = 0
retry_delays_ms = [0]
max_attempts = 3
handlers = ["payments"]
)";

std::string Header(const TempDir& dir) {
  return "[broker]\nurl = \"queue:" + dir.File("q.db") + "\"\n[store]\nurl = \"sqlite:" + dir.File("s.db") + "\"\n" +
         "[service]\nlog_decisions = false\n";
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void Load(const TempDir& dir, const payments::Workload& w) {
  auto store = OpenSqliteStore(dir.File("s.db"), {}, Env::Default());
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE(payments::CreateSchema(**store, payments::SchemaVariant::kGuarded).ok());
  ASSERT_TRUE(payments::SeedData(**store, w.accounts, w.skus, w.orders).ok());
  auto queue = EmbeddedQueue::Open(dir.File("q.db"), {}, Env::Default());
  ASSERT_TRUE(queue.ok());
  std::vector<Message> batch;
  for (const payments::Publication& p : w.publications) {
    Message m;
    m.id = p.message_id;
    m.topic = w.events[p.event].topic;
    m.payload = w.events[p.event].payload;
    batch.push_back(std::move(m));
  }
  ASSERT_TRUE((*queue)->PublishBatch(batch).ok());
}

// Every row of the business tables that says what happened (timestamps left out).
std::string Dump(const TempDir& dir) {
  auto store = OpenSqliteStore(dir.File("s.db"), {}, Env::Default());
  EXPECT_TRUE(store.ok());
  auto tx = (*store)->Begin();
  EXPECT_TRUE(tx.ok());
  std::string out;
  for (const char* sql : {
           "SELECT biz_no, type, user_id, amount_cents FROM pay_account_flows ORDER BY biz_no, type",
           "SELECT user_id, balance_cents FROM pay_accounts ORDER BY user_id",
           "SELECT order_no, status, version, payment_id FROM pay_orders ORDER BY order_no",
           "SELECT sku, quantity, version FROM pay_stock ORDER BY sku",
           "SELECT order_no, sku, quantity FROM pay_stock_moves ORDER BY order_no",
           "SELECT payment_id, scene, user_id, points FROM pay_points ORDER BY payment_id, scene",
           "SELECT event_key, idempotency_key, order_no, kind FROM pay_notifications ORDER BY event_key",
       }) {
    auto rows = (*tx)->Query(sql, {});
    EXPECT_TRUE(rows.ok()) << sql << ": " << rows.status().ToString();
    out += std::string(sql) + "\n";
    if (!rows.ok()) continue;
    for (const Row& r : *rows) {
      for (const Value& v : r) out += (IsNull(v) ? std::string("NULL") : AsText(v)) + "|";
      out += "\n";
    }
  }
  return out;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

int64_t DeadLetters(const TempDir& dir) {
  auto queue = EmbeddedQueue::Open(dir.File("q.db"), {}, Env::Default());
  EXPECT_TRUE(queue.ok());
  auto stats = (*queue)->Stats();
  EXPECT_TRUE(stats.ok());
  EXPECT_EQ(stats->ready + stats->in_flight + stats->delayed, 0) << "the run left messages unconsumed";
  return stats->dead;
}

void RunUntilIdle(const std::string& config) {
  RunningIdem run({"run", "--config", config, "--until-idle"});
  ASSERT_EQ(run.Wait(), 0) << run.Output();
}

TEST(DeclarativePaymentsTest, SameWorkloadLeavesTheSameDatabaseAsTheCppHandlers) {
  const payments::Workload w = payments::MakeWorkload(payments::Cause::kOutOfOrder, {.seed = 7, .events = 200});
  TempDir cpp, declared;
  Load(cpp, w);
  Load(declared, w);
  const std::string cpp_config = cpp.File("run.toml"), declared_config = declared.File("run.toml");
  std::ofstream(cpp_config) << Header(cpp) << kConsumerCpp;
  std::ofstream(declared_config) << Header(declared)
                                 << ReadFile(std::string(IDEM_SOURCE_DIR) + "/tests/service/payments_declarative.toml");
  RunUntilIdle(cpp_config);
  RunUntilIdle(declared_config);

  // Compared line by line, so a failure names the first rows that differ.
  const std::vector<std::string> a = Lines(Dump(cpp)), b = Lines(Dump(declared));
  ASSERT_EQ(a.size(), b.size());
  std::string table;
  int differing = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].rfind("SELECT", 0) == 0) table = a[i];
    if (a[i] != b[i] && differing++ < 5)
      ADD_FAILURE() << table << "\n  C++ handlers: " << a[i] << "\n  declarative:  " << b[i];
  }
  EXPECT_EQ(differing, 0);
  EXPECT_EQ(DeadLetters(cpp), DeadLetters(declared));
  // The comparison means something only if money moved and orders went through their states.
  auto store = OpenSqliteStore(cpp.File("s.db"), {}, Env::Default());
  ASSERT_TRUE(store.ok());
  EXPECT_EQ(testing::QueryInt(**store, "SELECT COUNT(*) FROM pay_account_flows"), w.expected.flows);
  EXPECT_GT(testing::QueryInt(**store, "SELECT COUNT(*) FROM pay_orders WHERE status <> 'WAIT_PAY'"), 0);
}

}  // namespace
}  // namespace idem
