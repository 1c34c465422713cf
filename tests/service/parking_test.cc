// One valid message must never hold a queue up, and its dead letter must stay
// readable: through `idem run --until-idle` on the embedded queue, with the
// declarative payments steps, a payment whose user_id is 200 kB, one whose
// amount has 500,000 digits, one with 1.2 MB of producer headers and bodies at
// and over the payload limit are each dead-lettered with a bounded reason
// (the value cut, with its length) and a byte-exact body; the good payment
// behind them is applied and the run returns.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "core/bounded_text.h"
#include "idem/embedded_queue.h"
#include "service/running_idem.h"
#include "testing/test_util.h"

namespace idem {
namespace {

using testing::RunningIdem;
using testing::TempDir;

constexpr const char* kConsumer = R"(
[[consumer]]
group = "payments"
workers = 1
batch_size = 10
max_linger_ms = 0
retry_delays_ms = [0]
max_attempts = 2

  [[consumer.handler]]
  topic = "pay"
  key = ["payment_id"]

    [[consumer.handler.step]]
    insert_once = "ledger"
    columns = { payment_id = "payment_id", user_id = "user_id" }

    [[consumer.handler.step]]
    change_balance = "accounts"
    key_column = "user_id"
    balance_column = "balance"
    key = "user_id"
    subtract = "amount"
)";

Message Payment(const std::string& body) {
  Message m;
  m.topic = "pay";
  m.payload = body;
  return m;
}

std::string PaddedTo(const std::string& id, size_t size) {
  const std::string head = R"({"payment_id":")" + id + R"(","user_id":"nobody","amount":5,"pad":")";
  return head + std::string(size - head.size() - 2, 'x') + "\"}";
}

TEST(ParkingEmbedded, HugeValuesAndHeadersAreDeadLetteredBoundedAndTheRunGoesIdle) {
  TempDir dir;
  {
    auto store = OpenSqliteStore(dir.File("s.db"), {}, Env::Default());
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE((*store)->ExecScript("CREATE TABLE accounts (user_id TEXT PRIMARY KEY, balance INTEGER NOT NULL);"
                                     "INSERT INTO accounts VALUES ('u1', 100);"
                                     "CREATE TABLE ledger (payment_id TEXT PRIMARY KEY, user_id TEXT NOT NULL);")
                    .ok());
  }
  const std::string long_user = R"({"payment_id":"P-user","user_id":")" + std::string(200'000, 'u') +
                                R"(","amount":5})";
  const std::string long_amount = R"({"payment_id":"P-amount","user_id":"u1","amount":)" +
                                  std::string(500'000, '9') + "}";
  Message headers = Payment(R"({"payment_id":"P-headers","user_id":"nobody","amount":5})");
  for (int i = 0; i < 4; ++i) headers.headers["x-big-" + std::to_string(i)] = std::string(300'000, 'h');
  const std::string at_limit = PaddedTo("P-at", 1 << 20), over_limit = PaddedTo("P-over", (1 << 20) + 1);
  {
    auto queue = EmbeddedQueue::Open(dir.File("q.db"), {}, Env::Default());
    ASSERT_TRUE(queue.ok());
    std::vector<Message> batch{Payment(long_user), Payment(long_amount), headers, Payment(at_limit),
                               Payment(over_limit), Payment(R"({"payment_id":"P-good","user_id":"u1","amount":5})")};
    ASSERT_TRUE((*queue)->PublishBatch(batch).ok());
  }
  const std::string config = dir.File("run.toml");
  std::ofstream(config) << "[broker]\nurl = \"queue:" << dir.File("q.db") << "\"\n[store]\nurl = \"sqlite:"
                        << dir.File("s.db") << "\"\n[service]\nlog_decisions = false\n"
                        << kConsumer;
  RunningIdem run({"run", "--config", config, "--until-idle"});
  ASSERT_EQ(run.Wait(), 0) << run.Output();

  auto store = OpenSqliteStore(dir.File("s.db"), {}, Env::Default());
  ASSERT_TRUE(store.ok());
  EXPECT_EQ(testing::QueryInt(**store, "SELECT COUNT(*) FROM ledger WHERE payment_id = 'P-good'"), 1);
  EXPECT_EQ(testing::QueryInt(**store, "SELECT balance FROM accounts WHERE user_id = 'u1'"), 95);
  EXPECT_EQ(testing::QueryInt(**store, "SELECT COUNT(*) FROM ledger"), 1) << "nothing else was applied";

  auto queue = EmbeddedQueue::Open(dir.File("q.db"), {}, Env::Default());
  ASSERT_TRUE(queue.ok());
  auto dead = (*queue)->List(10);
  ASSERT_TRUE(dead.ok());
  std::map<std::string, DeadLetter> by_payload;
  for (const DeadLetter& d : *dead) by_payload[d.message.payload] = d;
  ASSERT_EQ(by_payload.size(), 5u);
  for (const std::string* body :
       std::initializer_list<const std::string*>{&long_user, &long_amount, &headers.payload, &at_limit, &over_limit}) {
    ASSERT_EQ(by_payload.count(*body), 1u) << "byte-exact in the dead-letter queue: " << body->substr(0, 40);
    EXPECT_LE(by_payload[*body].reason.size(), 1000u) << by_payload[*body].reason.substr(0, 200);
  }
  EXPECT_NE(by_payload[long_user].reason.find("no row in accounts with user_id = \"uuu"), std::string::npos)
      << by_payload[long_user].reason;
  EXPECT_NE(by_payload[long_user].reason.find("(200,000 bytes)"), std::string::npos) << by_payload[long_user].reason;
  EXPECT_NE(by_payload[long_amount].reason.find("(500,000 bytes), beyond the 64-bit range"), std::string::npos)
      << by_payload[long_amount].reason;
  EXPECT_EQ(by_payload[headers.payload].message.headers.at("x-big-3"), std::string(300'000, 'h'))
      << "the embedded queue has no frame: every header is kept";
  EXPECT_NE(by_payload[at_limit].reason.find("no row in accounts with user_id = \"nobody\""), std::string::npos)
      << "a body at the payload limit is still run: " << by_payload[at_limit].reason;
  EXPECT_NE(by_payload[over_limit].reason.find("over the limit of 1048576"), std::string::npos)
      << by_payload[over_limit].reason;
}

}  // namespace
}  // namespace idem
