// A declarative handler whose steps are all insert_once or change_balance
// runs a batch's messages in one statement per step, and ends with the same ledger rows as one
// message at a time; a message that fails still fails alone. On SQLite, and on
// PostgreSQL when IDEM_TEST_POSTGRES_URL is set.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "idem/embedded_queue.h"
#include "idem/pipeline.h"
#include "service/config.h"
#include "service/declarative_handler.h"
#include "sim/sim_env.h"
#include "testing/test_util.h"
#ifdef IDEM_WITH_POSTGRES
#include "postgres/pg_test_support.h"
#endif

namespace idem::service {
namespace {

const std::string kPayHead = R"(
[broker]
url = "q"
[store]
url = "s"
[[consumer]]
group = "g"
  [[consumer.handler]]
  topic = "pay"
  key = ["/pay_id"]
    [[consumer.handler.step]]
    insert_once = "ledger"
    columns = { biz_no = "pay_id", amount = "amount", kind = { text = "PAY" } }
)";

const std::string kFile = kPayHead + R"(
    [[consumer.handler.step]]
    insert_once = "audit"
    columns = { biz_no = "pay_id", at_ms = "$now_ms" }
)";

// The ledger row, then the deduction from the payer's account.
const std::string kChargeFile = kPayHead + R"(
    [[consumer.handler.step]]
    change_balance = "accounts"
    key_column = "owner"
    balance_column = "balance"
    key = "owner"
    subtract = "amount"
)";

constexpr const char* kSchema =
    "CREATE TABLE ledger (biz_no TEXT NOT NULL UNIQUE, amount BIGINT NOT NULL, kind TEXT);"
    "CREATE TABLE audit (biz_no TEXT NOT NULL UNIQUE, at_ms BIGINT);"
    "CREATE TABLE accounts (owner VARCHAR(16) PRIMARY KEY, balance BIGINT NOT NULL);"
    "INSERT INTO accounts VALUES ('ann', 100), ('bob', 100), ('cy', 15);";

enum class Engine { kSqlite, kPostgres };

HandlerSpec DeclaredPay(const std::string& file) {
  auto config = ParseConfig(file, "f.toml");
  EXPECT_TRUE(config.ok()) << config.status().ToString();
  auto spec = MakeDeclaredHandler(config->consumers[0].handlers[0], config->state_machines);
  EXPECT_TRUE(spec.ok()) << spec.status().ToString();
  return std::move(*spec);
}

// One store with the handler's tables and one queue, and the pipeline between them.
struct Lane {
  std::unique_ptr<Store> store;
  std::unique_ptr<EmbeddedQueue> queue;
  std::unique_ptr<Pipeline> pipeline;
  int sets = 0;          // calls of the set-based form
  int sets_applied = 0;  // of which every message was Ok (nothing fell back)
};

class DeclarativeSetBasedTest : public ::testing::TestWithParam<Engine> {
 protected:
  std::unique_ptr<Store> OpenStore(const std::string& name) {
    if (GetParam() == Engine::kPostgres) {
#ifdef IDEM_WITH_POSTGRES
      if (idem::testing::PostgresTestUrl().empty()) return nullptr;
      return idem::testing::OpenPgStoreOrFail(idem::testing::FreshSchemaUrl());
#else
      return nullptr;
#endif
    }
    auto s = OpenSqliteStore(dir_.File(name + ".db"), {}, &env_);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? std::move(*s) : nullptr;
  }

  // `set_based` false: the same handler without its set-based form.
  std::unique_ptr<Lane> MakeLane(const std::string& name, bool set_based, const std::string& extra_sql = {},
                                 const std::string& file = kFile) {
    auto lane = std::make_unique<Lane>();
    lane->store = OpenStore(name);
    if (!lane->store) return nullptr;
    EXPECT_TRUE(lane->store->ExecScript(std::string(kSchema) + extra_sql).ok());
    auto q = EmbeddedQueue::Open(dir_.File(name + "-queue.db"), {}, &env_);
    EXPECT_TRUE(q.ok()) << q.status().ToString();
    lane->queue = std::move(*q);
    HandlerSpec spec = DeclaredPay(file);
    EXPECT_TRUE(spec.batch_fn) << "every step has a set form: so has the handler";
    if (set_based) {
      BatchHandlerFn inner = spec.batch_fn;
      Lane* l = lane.get();
      spec.batch_fn = [inner, l](std::span<HandlerContext* const> all) {
        std::vector<HandlerResult> out = inner(all);
        l->sets++;
        bool ok = out.size() == all.size();
        for (const HandlerResult& r : out) ok = ok && r.outcome == HandlerResult::Outcome::kOk;
        l->sets_applied += ok;
        return out;
      };
    } else {
      spec.batch_fn = nullptr;
    }
    PipelineOptions o;
    o.max_linger_ms = 0;
    lane->pipeline = std::make_unique<Pipeline>(lane->queue.get(), lane->store.get(), &env_, o);
    EXPECT_TRUE(lane->pipeline->Register(std::move(spec)).ok());
    return lane;
  }

  static void Publish(Lane& lane, const std::vector<std::string>& payloads) {
    for (const std::string& p : payloads) {
      Message m;
      m.topic = "pay";
      m.payload = p;
      ASSERT_TRUE(lane.queue->Publish(m).ok());
    }
  }

  static void Drain(Lane& lane) {
    for (int i = 0; i < 100; ++i)
      if (lane.pipeline->RunOnce().polled == 0) return;
    FAIL() << "the queue never drained";
  }

  static std::string Dump(Store& store, const std::string& sql) { return idem::testing::DumpRows(store, sql); }

  static RecordStatus StatusOf(Lane& lane, const std::string& key) {
    auto r = lane.store->ReadRecord("default", key);
    EXPECT_TRUE(r.ok() && r->has_value()) << key;
    return r.ok() && r->has_value() ? (*r)->status : RecordStatus{};
  }

  idem::testing::TempDir dir_;
  sim::SimEnv env_{/*seed=*/42, /*start_ms=*/1'700'000'000'000};
};

#define IDEM_LANE_OR_SKIP(lane, ...)                                              \
  auto lane = MakeLane(__VA_ARGS__);                                             \
  if (!lane && !HasFailure()) GTEST_SKIP() << "IDEM_TEST_POSTGRES_URL is not set"; \
  ASSERT_NE(lane, nullptr)

TEST_P(DeclarativeSetBasedTest, TheSetWritesTheSameRowsAsOneMessageAtATime) {
  // Copies of P2 and P4 in the same batch and in the next one.
  const std::vector<std::string> batch = {
      R"({"pay_id":"P1","amount":10})", R"({"pay_id":"P2","amount":20})", R"({"pay_id":"P2","amount":20})",
      R"({"pay_id":"P3","amount":30})", R"({"pay_id":"P4","amount":40})", R"({"pay_id":"P4","amount":40})"};
  const std::vector<std::string> again = {R"({"pay_id":"P2","amount":20})", R"({"pay_id":"P5","amount":50})",
                                          R"({"pay_id":"P4","amount":40})", R"({"pay_id":"P6","amount":60})"};
  IDEM_LANE_OR_SKIP(set, "set", true);
  IDEM_LANE_OR_SKIP(one, "one", false);
  for (Lane* lane : {set.get(), one.get()}) {
    Publish(*lane, batch);
    Drain(*lane);
    Publish(*lane, again);
    Drain(*lane);
  }
  EXPECT_EQ(set->sets, 2);
  EXPECT_EQ(set->sets_applied, 2) << "every row was new: nothing fell back";
  const std::string ledger = "SELECT biz_no, amount, kind FROM ledger ORDER BY biz_no";
  const std::string audit = "SELECT biz_no, at_ms FROM audit ORDER BY biz_no";
  EXPECT_EQ(Dump(*set->store, ledger), Dump(*one->store, ledger));
  EXPECT_EQ(Dump(*set->store, audit), Dump(*one->store, audit));
  EXPECT_EQ(Dump(*set->store, ledger),
            "P1|10|PAY\nP2|20|PAY\nP3|30|PAY\nP4|40|PAY\nP5|50|PAY\nP6|60|PAY\n");
  for (const char* key : {"pay:P1", "pay:P2", "pay:P6"}) EXPECT_EQ(StatusOf(*set, key), RecordStatus::kSucceeded);
}

TEST_P(DeclarativeSetBasedTest, AFailingMessageFailsAloneAndTheOthersCommit) {
  // P2 has no amount (a bad payload, parked); P3's row is already in the
  // ledger (acknowledged as already applied, nothing written for it).
  IDEM_LANE_OR_SKIP(set, "set", true, "INSERT INTO ledger VALUES ('P3', 3, 'OLD');");
  Publish(*set, {R"({"pay_id":"P1","amount":10})", R"({"pay_id":"P2"})", R"({"pay_id":"P3","amount":30})",
                 R"({"pay_id":"P4","amount":40})"});
  BatchReport r = set->pipeline->RunOnce();
  EXPECT_EQ(r.first, 3u);
  EXPECT_EQ(r.parked, 1u);
  EXPECT_EQ(set->sets, 1);
  EXPECT_EQ(set->sets_applied, 0) << "the set fell back to one message at a time";
  EXPECT_EQ(Dump(*set->store, "SELECT biz_no, amount, kind FROM ledger ORDER BY biz_no"),
            "P1|10|PAY\nP3|3|OLD\nP4|40|PAY\n");
  EXPECT_EQ(Dump(*set->store, "SELECT biz_no FROM audit ORDER BY biz_no"), "P1\nP4\n");
  EXPECT_EQ(StatusOf(*set, "pay:P2"), RecordStatus::kFailed);
  EXPECT_EQ(StatusOf(*set, "pay:P3"), RecordStatus::kSucceeded);
}

TEST_P(DeclarativeSetBasedTest, ARowAlreadyThereIsAcknowledgedAloneAndSkipsItsLaterSteps) {
  IDEM_LANE_OR_SKIP(set, "set", true, "INSERT INTO ledger VALUES ('P3', 3, 'OLD');");
  Publish(*set, {R"({"pay_id":"P1","amount":10})", R"({"pay_id":"P3","amount":30})", R"({"pay_id":"P4","amount":40})"});
  BatchReport r = set->pipeline->RunOnce();
  EXPECT_EQ(r.first, 3u);
  EXPECT_EQ(set->sets_applied, 0) << "the set fell back to one message at a time";
  EXPECT_EQ(Dump(*set->store, "SELECT biz_no, amount, kind FROM ledger ORDER BY biz_no"),
            "P1|10|PAY\nP3|3|OLD\nP4|40|PAY\n");
  EXPECT_EQ(Dump(*set->store, "SELECT biz_no FROM audit ORDER BY biz_no"), "P1\nP4\n")
      << "P3 stopped at its first step, as it does alone";
  auto p3 = set->store->ReadRecord("default", "pay:P3");
  ASSERT_TRUE(p3.ok() && p3->has_value());
  EXPECT_NE((*p3)->result_summary.find("already applied"), std::string::npos) << (*p3)->result_summary;
}

TEST_P(DeclarativeSetBasedTest, ChargesOfABatchApplyAsOneMessageAtATime) {
  // ann pays twice in one batch; the set sums her deductions.
  const std::vector<std::string> batch = {R"({"pay_id":"P1","owner":"ann","amount":30})",
                                          R"({"pay_id":"P2","owner":"bob","amount":20})",
                                          R"({"pay_id":"P3","owner":"ann","amount":70})"};
  IDEM_LANE_OR_SKIP(set, "set", true, "", kChargeFile);
  IDEM_LANE_OR_SKIP(one, "one", false, "", kChargeFile);
  for (Lane* lane : {set.get(), one.get()}) {
    Publish(*lane, batch);
    Drain(*lane);
  }
  EXPECT_EQ(set->sets, 1);
  EXPECT_EQ(set->sets_applied, 1) << "every balance sufficed: nothing fell back";
  const std::string accounts = "SELECT owner, balance FROM accounts ORDER BY owner";
  const std::string ledger = "SELECT biz_no, amount FROM ledger ORDER BY biz_no";
  EXPECT_EQ(Dump(*set->store, accounts), "ann|0\nbob|80\ncy|15\n");
  EXPECT_EQ(Dump(*set->store, accounts), Dump(*one->store, accounts));
  EXPECT_EQ(Dump(*set->store, ledger), Dump(*one->store, ledger));
  auto p3 = set->store->ReadRecord("default", "pay:P3");
  ASSERT_TRUE(p3.ok() && p3->has_value());
  EXPECT_EQ((*p3)->result_summary, "applied: insert_once, change_balance");
}

TEST_P(DeclarativeSetBasedTest, AShortAccountIsRetriedAloneAndTheOthersAreChargedOnce) {
  // cy has 15 and owes 20; a missing account is parked.
  IDEM_LANE_OR_SKIP(set, "set", true, "", kChargeFile);
  Publish(*set, {R"({"pay_id":"P1","owner":"ann","amount":30})", R"({"pay_id":"P2","owner":"cy","amount":20})",
                 R"({"pay_id":"P3","owner":"bob","amount":40})", R"({"pay_id":"P4","owner":"dan","amount":1})"});
  BatchReport r = set->pipeline->RunOnce();
  EXPECT_EQ(r.first, 2u);
  EXPECT_EQ(r.parked, 1u);
  EXPECT_EQ(set->sets, 1);
  EXPECT_EQ(set->sets_applied, 0) << "the set fell back to one message at a time";
  EXPECT_EQ(Dump(*set->store, "SELECT owner, balance FROM accounts ORDER BY owner"), "ann|70\nbob|60\ncy|15\n");
  EXPECT_EQ(Dump(*set->store, "SELECT biz_no FROM ledger ORDER BY biz_no"), "P1\nP3\n")
      << "the short and the missing payment's ledger rows roll back with their message";
  EXPECT_EQ(StatusOf(*set, "pay:P1"), RecordStatus::kSucceeded);
  EXPECT_EQ(StatusOf(*set, "pay:P3"), RecordStatus::kSucceeded);
  EXPECT_EQ(StatusOf(*set, "pay:P4"), RecordStatus::kFailed);
  auto p2 = set->store->ReadRecord("default", "pay:P2");
  ASSERT_TRUE(p2.ok() && p2->has_value());
  EXPECT_NE((*p2)->status, RecordStatus::kSucceeded);
  EXPECT_NE((*p2)->last_error.find("insufficient funds"), std::string::npos) << (*p2)->last_error;

  // Topped up, cy's retry is charged once; the others are not charged again.
  ASSERT_TRUE(set->store->ExecScript("UPDATE accounts SET balance = 25 WHERE owner = 'cy';").ok());
  env_.Advance(3'600'000);  // past the retry delay
  Drain(*set);
  EXPECT_EQ(Dump(*set->store, "SELECT owner, balance FROM accounts ORDER BY owner"), "ann|70\nbob|60\ncy|5\n");
  EXPECT_EQ(StatusOf(*set, "pay:P2"), RecordStatus::kSucceeded);
}

TEST(DeclarativeSetBasedFormTest, OnlyHandlersWhoseStepsAllHaveOneGetIt) {
  const std::string head = "[broker]\nurl = \"q\"\n[store]\nurl = \"s\"\n[[consumer]]\ngroup = \"g\"\n[[consumer.handler]]\n"
                           "topic = \"t\"\nkey = [\"id\"]\n"
                           "[[consumer.handler.step]]\ninsert_once = \"ledger\"\ncolumns = { biz_no = \"id\" }\n";
  const std::string balance = "[[consumer.handler.step]]\nchange_balance = \"accounts\"\nkey_column = \"owner\"\n"
                              "balance_column = \"balance\"\nkey = \"owner\"\nsubtract = \"amount\"\n";
  const std::string sql = "[[consumer.handler.step]]\nsql = \"DELETE FROM holds WHERE id = ?\"\nparams = [\"id\"]\n";
  for (const auto& [file, set_based] :
       {std::pair{head, true}, std::pair{head + balance, true}, std::pair{head + balance + sql, false}}) {
    auto config = ParseConfig(file, "f.toml");
    ASSERT_TRUE(config.ok()) << config.status().ToString();
    auto spec = MakeDeclaredHandler(config->consumers[0].handlers[0], config->state_machines);
    ASSERT_TRUE(spec.ok()) << spec.status().ToString();
    EXPECT_EQ(static_cast<bool>(spec->batch_fn), set_based) << file;
  }
}

INSTANTIATE_TEST_SUITE_P(Engines, DeclarativeSetBasedTest, ::testing::Values(Engine::kSqlite, Engine::kPostgres),
                         [](const auto& info) { return info.param == Engine::kSqlite ? "Sqlite" : "Postgres"; });

}  // namespace
}  // namespace idem::service
