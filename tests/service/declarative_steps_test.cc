// Each declarative step's outcomes follow the guards' rules: applied goes on,
// already applied acks, insufficient funds and too-early events retry, illegal
// moves and bad payloads are permanent. Run against a SQLite store directly.
#include <gtest/gtest.h>

#include "service/config.h"
#include "service/declarative_handler.h"
#include "testing/test_util.h"
#include "sim/sim_env.h"

namespace idem::service {
namespace {

constexpr const char* kFile = R"(
[broker]
url = "q"
[store]
url = "s"
[[state_machine]]
name = "order"
table = "orders"
key_column = "id"
state_column = "status"
transitions = [["NEW", "PAID"], ["PAID", "SHIPPED"]]
on_stale = "ack"

[[consumer]]
group = "g"
  [[consumer.handler]]
  topic = "pay"
  key = ["/pay_id"]
    [[consumer.handler.step]]
    transition = "order"
    key = "/order/id"
    to = "PAID"
    [[consumer.handler.step]]
    insert_once = "ledger"
    columns = { biz_no = "pay_id", amount = { minus = "amount" }, kind = { text = "PAY" } }
    [[consumer.handler.step]]
    change_balance = "accounts"
    key_column = "owner"
    balance_column = "balance"
    key = "owner"
    subtract = "amount"
    [[consumer.handler.step]]
    sql = "UPDATE accounts SET touched = touched + 1 WHERE owner = ?"
    params = ["owner"]
    expect_rows = 1
)";

// Runs `spec` once on `payload` in its own transaction, committed when it succeeds.
HandlerResult RunInOwnTransaction(Store& store, Env& env, const HandlerSpec& spec, const std::string& payload) {
  auto tx = store.Begin();
  EXPECT_TRUE(tx.ok());
  Message m;
  m.topic = spec.topic;
  m.payload = payload;
  auto parsed = Payload::Parse(payload);
  EXPECT_TRUE(parsed.ok());
  const std::string key = spec.topic + ":x";
  HandlerContext ctx{m, key, **tx, env, *parsed};
  HandlerResult r = spec.fn(ctx);
  if (r.outcome == HandlerResult::Outcome::kOk) {
    EXPECT_TRUE((*tx)->Commit().ok());
  }
  return r;
}

class DeclarativeStepsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = OpenSqliteStore(":memory:", {}, &env_);
    ASSERT_TRUE(store.ok());
    store_ = std::move(*store);
    ASSERT_TRUE(store_
                    ->ExecScript("CREATE TABLE orders (id TEXT PRIMARY KEY, status TEXT NOT NULL);"
                                 "CREATE TABLE ledger (biz_no TEXT NOT NULL UNIQUE, amount BIGINT, kind TEXT);"
                                 "CREATE TABLE accounts (owner TEXT PRIMARY KEY, balance BIGINT, touched BIGINT);"
                                 "INSERT INTO orders VALUES ('O1', 'NEW'), ('O2', 'SHIPPED'), ('O3', 'NEW');"
                                 "INSERT INTO accounts VALUES ('u1', 100, 0);")
                    .ok());
    auto config = ParseConfig(kFile, "f.toml");
    ASSERT_TRUE(config.ok()) << config.status().ToString();
    auto spec = MakeDeclaredHandler(config->consumers[0].handlers[0], config->state_machines);
    ASSERT_TRUE(spec.ok()) << spec.status().ToString();
    spec_ = std::move(*spec);
  }

  HandlerResult Run(const std::string& payload) { return RunInOwnTransaction(*store_, env_, spec_, payload); }

  int64_t Int(const std::string& sql) { return idem::testing::QueryInt(*store_, sql); }

  sim::SimEnv env_{/*seed=*/42, /*start_ms=*/1'700'000'000'000};
  std::unique_ptr<Store> store_;
  HandlerSpec spec_;
};

TEST_F(DeclarativeStepsTest, AppliedStepsWriteEveryEffectOnce) {
  EXPECT_EQ(spec_.key.fields, std::vector<std::string>{"pay_id"});
  HandlerResult r = Run(R"({"pay_id":"P1","order":{"id":"O1"},"owner":"u1","amount":30})");
  ASSERT_EQ(r.outcome, HandlerResult::Outcome::kOk) << r.reason;
  EXPECT_EQ(Int("SELECT amount FROM ledger WHERE biz_no = 'P1'"), -30);
  EXPECT_EQ(Int("SELECT balance FROM accounts"), 70);
  EXPECT_EQ(Int("SELECT touched FROM accounts"), 1);
  EXPECT_EQ(Int("SELECT COUNT(*) FROM orders WHERE status = 'PAID'"), 1);
  // The same event again: already in the target, acknowledged, nothing applied twice.
  r = Run(R"({"pay_id":"P1","order":{"id":"O1"},"owner":"u1","amount":30})");
  EXPECT_EQ(r.outcome, HandlerResult::Outcome::kOk);
  EXPECT_EQ(Int("SELECT balance FROM accounts"), 70);
  EXPECT_EQ(Int("SELECT COUNT(*) FROM ledger"), 1);
}

TEST_F(DeclarativeStepsTest, InsufficientFundsIsRetryable) {
  HandlerResult r = Run(R"({"pay_id":"P2","order":{"id":"O3"},"owner":"u1","amount":500})");
  EXPECT_EQ(r.outcome, HandlerResult::Outcome::kRetryable);
  EXPECT_NE(r.reason.find("insufficient funds"), std::string::npos) << r.reason;
  EXPECT_EQ(Int("SELECT balance FROM accounts"), 100);
}

TEST_F(DeclarativeStepsTest, StaleEventIsAcknowledgedAndAppliesNothing) {
  HandlerResult r = Run(R"({"pay_id":"P3","order":{"id":"O2"},"owner":"u1","amount":10})");
  EXPECT_EQ(r.outcome, HandlerResult::Outcome::kOk);
  EXPECT_NE(r.summary.find("stale"), std::string::npos) << r.summary;
  EXPECT_EQ(Int("SELECT COUNT(*) FROM ledger"), 0);
  EXPECT_EQ(Int("SELECT balance FROM accounts"), 100);
}

TEST_F(DeclarativeStepsTest, UnknownRowAndBadPayloadArePermanent) {
  EXPECT_EQ(Run(R"({"pay_id":"P4","order":{"id":"O9"},"owner":"u1","amount":10})").outcome,
            HandlerResult::Outcome::kPermanent);
  HandlerResult r = Run(R"({"pay_id":"P5","order":{"id":"O3"},"owner":"u1","amount":"ten"})");
  EXPECT_EQ(r.outcome, HandlerResult::Outcome::kPermanent);
  EXPECT_NE(r.reason.find("amount"), std::string::npos) << r.reason;
  r = Run(R"({"pay_id":"P6","order":{"id":"O3"},"owner":"nobody","amount":10})");
  EXPECT_EQ(r.outcome, HandlerResult::Outcome::kPermanent);
  EXPECT_NE(r.reason.find("no row in accounts"), std::string::npos) << r.reason;
}

TEST_F(DeclarativeStepsTest, AHugeValueIsQuotedCutWithItsLengthInTheReason) {
  const std::string owner(200'000, 'u');
  HandlerResult r = Run(R"({"pay_id":"P7","order":{"id":"O3"},"owner":")" + owner + R"(","amount":10})");
  EXPECT_EQ(r.outcome, HandlerResult::Outcome::kPermanent);
  EXPECT_NE(r.reason.find("no row in accounts"), std::string::npos) << r.reason.substr(0, 200);
  EXPECT_NE(r.reason.find("uuu\xE2\x80\xA6\" (200,000 bytes)"), std::string::npos) << r.reason.substr(0, 200);
  EXPECT_LT(r.reason.size(), 1000u) << "the value is not echoed whole";
  // A 500,000-digit amount: its text is cut the same way.
  r = Run(R"({"pay_id":"P8","order":{"id":"O3"},"owner":"u1","amount":)" + std::string(500'000, '9') + "}");
  EXPECT_EQ(r.outcome, HandlerResult::Outcome::kPermanent);
  EXPECT_NE(r.reason.find("(500,000 bytes)"), std::string::npos) << r.reason.substr(0, 200);
  EXPECT_LT(r.reason.size(), 1000u);
}

TEST(DeclarativeConfigTest, StepErrorsNameTheirPosition) {
  const std::string head = "[broker]\nurl = \"q\"\n[store]\nurl = \"s\"\n[[consumer]]\ngroup = \"g\"\n[[consumer.handler]]\n"
                           "topic = \"t\"\nkey = [\"id\"]\n";
  struct Case {
    std::string steps, position, says;
  };
  const std::vector<Case> cases = {
      {"[[consumer.handler.step]]\ninsert_once = \"bad table\"\ncolumns = { a = \"id\" }\n", "f.toml:11:15",
       "is not a plain SQL identifier"},
      {"[[consumer.handler.step]]\ninsert_once = \"t\"\nsql = \"SELECT 1\"\n", "f.toml:10:1",
       "needs exactly one of insert_once, change_balance, transition, update_if_version, sql (found 2)"},
      {"[[consumer.handler.step]]\nsql = \"UPDATE t SET a = ? WHERE b = ?\"\nparams = [\"a\"]\n", "f.toml:12:10",
       "the statement has 2 ? marker(s) and params has 1 value(s)"},
      {"[[consumer.handler.step]]\ntransition = \"order\"\nkey = \"id\"\nto = \"PAID\"\n", "f.toml:11:14",
       "no [[state_machine]] named \"order\""},
      {"[[consumer.handler.step]]\ninsert_once = \"t\"\ncolumns = { a = \"$now\" }\n", "f.toml:12:17",
       "unknown \"$now\""},
      {"[[consumer.handler.step]]\nchange_balance = \"a\"\nkey_column = \"k\"\nbalance_column = \"b\"\nkey = \"id\"\n",
       "f.toml:10:1", "needs exactly one of add = … or subtract = …"},
      {"[[consumer.handler.step]]\ninsert_once = \"t\"\ncolumns = { a = \"id\" }\nretries = 3\n", "f.toml:13:1",
       "unknown key 'retries'"},
  };
  for (const Case& c : cases) {
    auto r = ParseConfig(head + c.steps, "f.toml");
    ASSERT_FALSE(r.ok()) << c.steps;
    EXPECT_EQ(r.status().message().rfind(c.position + ": ", 0), 0u) << r.status().message();
    EXPECT_NE(r.status().message().find(c.says), std::string::npos) << r.status().message();
  }
  auto nested_key = ParseConfig("[broker]\nurl = \"q\"\n[store]\nurl = \"s\"\n[[consumer]]\ngroup = \"g\"\n"
                                "[[consumer.handler]]\ntopic = \"t\"\nkey = [\"/order/id\"]\n",
                                "f.toml");
  ASSERT_FALSE(nested_key.ok());
  EXPECT_EQ(nested_key.status().message().rfind("f.toml:9:8: ", 0), 0u) << nested_key.status().message();
}

TEST(DeclarativeUpdateIfVersionTest, AppliesOnTheExpectedVersionAndAcksAMovedOne) {
  sim::SimEnv env{/*seed=*/42, /*start_ms=*/1'700'000'000'000};
  auto store = OpenSqliteStore(":memory:", {}, &env);
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE((*store)
                  ->ExecScript("CREATE TABLE stock (sku TEXT PRIMARY KEY, quantity BIGINT, version BIGINT);"
                               "INSERT INTO stock VALUES ('S1', 10, 3);")
                  .ok());
  auto config = ParseConfig(R"(
[broker]
url = "q"
[store]
url = "s"
[[consumer]]
group = "g"
  [[consumer.handler]]
  topic = "stock.set"
  key = ["event_id"]
    [[consumer.handler.step]]
    update_if_version = "stock"
    key_column = "sku"
    version_column = "version"
    key = "sku"
    expected_version = "version"
    set = { quantity = "quantity" }
)",
                            "f.toml");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  auto spec = MakeDeclaredHandler(config->consumers[0].handlers[0], config->state_machines);
  ASSERT_TRUE(spec.ok());
  auto run = [&](const std::string& payload) { return RunInOwnTransaction(**store, env, *spec, payload); };
  EXPECT_EQ(run(R"({"event_id":"e1","sku":"S1","version":3,"quantity":7})").outcome, HandlerResult::Outcome::kOk);
  EXPECT_EQ(idem::testing::QueryInt(**store, "SELECT quantity FROM stock"), 7);
  EXPECT_EQ(idem::testing::QueryInt(**store, "SELECT version FROM stock"), 4);
  // Computed from version 3, which is gone: stale, acknowledged, nothing written.
  HandlerResult stale = run(R"({"event_id":"e2","sku":"S1","version":3,"quantity":1})");
  EXPECT_EQ(stale.outcome, HandlerResult::Outcome::kOk);
  EXPECT_NE(stale.summary.find("stale"), std::string::npos) << stale.summary;
  EXPECT_EQ(idem::testing::QueryInt(**store, "SELECT quantity FROM stock"), 7);
  EXPECT_EQ(run(R"({"event_id":"e3","sku":"S9","version":0,"quantity":1})").outcome,
            HandlerResult::Outcome::kPermanent);
}

}  // namespace
}  // namespace idem::service
