// Redis killed or flushed while consumers run, with the database as the guard
// behind it: SQLite always, PostgreSQL too when its test server is configured
// (the production pairing). The Redis is the shared one from
// scripts/servers/redis.sh, so this executable runs alone (RUN_SERIAL).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "conformance/store_conformance.h"
#include "idem/embedded_queue.h"
#include "idem/pipeline.h"
#include "redis/redis_test_support.h"
#include "testing/consumer_group.h"
#include "testing/portable_pay.h"
#include "testing/test_util.h"
#ifdef IDEM_TEST_WITH_POSTGRES
#include "postgres/pg_test_support.h"
#endif

namespace idem::testing {
namespace {

const std::string kScript = std::string(IDEM_SOURCE_DIR) + "/scripts/servers/redis.sh";

std::string ScriptOutput(const std::string& args) {
  std::string out;
  if (FILE* f = popen((kScript + " " + args).c_str(), "r")) {
    char buf[512];
    while (fgets(buf, sizeof buf, f)) out += buf;
    pclose(f);
  }
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

void RunScript(const std::string& args) { ASSERT_EQ(std::system((kScript + " " + args).c_str()), 0) << args; }

TempDir& Dir() {
  static TempDir dir;  // removed at exit
  return dir;
}

void Skip(const char* why) { GTEST_SKIP() << why; }

std::vector<StoreFactory> GuardStores() {
  std::vector<StoreFactory> stores;
  stores.push_back({"sqlite",
                    [] {
                      static int n = 0;
                      return Dir().File("guard-" + std::to_string(++n) + ".db");
                    },
                    [](const std::string& path, Env* env) -> std::unique_ptr<Store> {
                      auto s = OpenSqliteStore(path, {}, env);
                      EXPECT_TRUE(s.ok()) << s.status().ToString();
                      return s.ok() ? std::move(*s) : nullptr;
                    }});
#ifdef IDEM_TEST_WITH_POSTGRES
  stores.push_back({"postgres",
                    []() -> std::string {
                      if (!PostgresTestUrl().empty()) return FreshSchemaUrl();
                      Skip(kNoPostgres);
                      return "";
                    },
                    [](const std::string& url, Env*) { return OpenPgStoreOrFail(url); }});
#endif
  return stores;
}

class RedisOutageTest : public ::testing::TestWithParam<StoreFactory> {
 protected:
  void SetUp() override {
    if (RedisTestUrl().empty()) GTEST_SKIP() << kNoRedis;
    if (ScriptOutput("url") != RedisTestUrl())
      GTEST_SKIP() << "IDEM_TEST_REDIS_URL is not the server " << kScript << " manages; not killing it";
    location_ = GetParam().fresh_database();
    if (IsSkipped()) return;
    store_ = GetParam().open(location_, Env::Default());
    ASSERT_NE(store_, nullptr);
    CreateEffectTables(*store_);
    queue_path_ = Dir().File("queue-" + std::to_string(reinterpret_cast<uintptr_t>(this)) + ".db");
    queue_ = OpenQueue();
    ASSERT_NE(queue_, nullptr);
    prefix_ = UniqueKeyPrefix();
  }

  // Whatever happened, leave Redis running for the tests after this one.
  void TearDown() override {
    if (!RedisTestUrl().empty() && !IsSkipped()) RunScript("start");
  }

  std::unique_ptr<EmbeddedQueue> OpenQueue() {
    auto q = EmbeddedQueue::Open(queue_path_, {}, Env::Default());
    EXPECT_TRUE(q.ok()) << q.status().ToString();
    return q.ok() ? std::move(*q) : nullptr;
  }

  ConsumerParts Consumer(FilterOutagePolicy policy) {
    ConsumerParts c;
    c.queue = OpenQueue();
    c.store = GetParam().open(location_, Env::Default());
    c.filter = OpenFilterOrFail(RedisTestUrl(), TestFilterOptions(prefix_));
    PipelineOptions o;
    o.max_linger_ms = 0;
    o.batch_size = 10;
    o.lease_ms = 500;  // copies held back behind another consumer's marker return soon
    o.unavailable_backoff_min_ms = 5;
    o.unavailable_backoff_max_ms = 50;
    c.pipeline = std::make_unique<Pipeline>(c.queue.get(), c.store.get(), Env::Default(), o);
    EXPECT_TRUE(c.pipeline->Register(GatedHandler(PayHandler(), "pay:P30", &gate_)).ok());
    FastFilterOptions f;
    f.outage_policy = policy;
    EXPECT_TRUE(c.pipeline->SetFastFilter(c.filter.get(), f).ok());
    return c;
  }

  // Each payment in `copies` copies, one round per copy. Returns the amounts' total.
  int64_t PublishPayments(int payments, int copies) {
    int64_t total = 0;
    std::vector<Message> messages = PaymentCopies(payments, copies, payments, &total);
    EXPECT_TRUE(queue_->PublishBatch(messages).ok());
    return total;
  }

  void ExpectExactlyOnce(ConsumerGroup& group, int payments, int64_t total) {
    EXPECT_EQ(CountEffects(*store_), payments);
    EXPECT_EQ(Balance(*store_, "u1"), 1000000 - total);
    EXPECT_EQ(group.Sum(&DecisionCounters::first), payments);
    auto stats = queue_->Stats();
    ASSERT_TRUE(stats.ok());
    EXPECT_EQ(stats->dead, 0);
  }

  // Payment P30 waits here on its first run, so the disruption lands mid-run.
  Gate gate_;
  std::string location_;
  std::string queue_path_;
  std::string prefix_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<EmbeddedQueue> queue_;
};

// Fail-closed: while Redis is down nothing is applied and nothing is lost; when
// it is back (empty) consumption resumes, and the database catches the copies.
TEST_P(RedisOutageTest, KilledMidRunFailClosedPausesThenResumesWithoutDuplicates) {
  constexpr int kPayments = 100;
  const int64_t total = PublishPayments(kPayments, 2);
  ConsumerGroup group(1, [&](int) { return Consumer(FilterOutagePolicy::kClosed); });
  ASSERT_TRUE(WaitFor([&] { return gate_.entered.load(); }, 30'000));
  RunScript("kill");
  gate_.open = true;
  ASSERT_TRUE(WaitFor([&] { return group.Sum(&DecisionCounters::degraded) > 0; }, 30'000));
  // One consumer thread: once a batch found Redis down, the next batches do too.
  const int64_t first_while_down = group.Sum(&DecisionCounters::first);
  const int64_t degraded = group.Sum(&DecisionCounters::degraded);
  ASSERT_TRUE(WaitFor([&] { return group.Sum(&DecisionCounters::degraded) > degraded + 20; }, 30'000));
  EXPECT_EQ(group.Sum(&DecisionCounters::first), first_while_down) << "fail-closed must not consume";
  EXPECT_EQ(CountEffects(*store_), first_while_down);
  EXPECT_LT(first_while_down, kPayments);

  RunScript("start");
  ASSERT_TRUE(WaitFor([&] { return QueueSettled(*queue_); }, 60'000)) << "consumption never resumed";
  group.Stop();
  ExpectExactlyOnce(group, kPayments, total);
}

// Fail-open: consumption goes on without Redis; the database guard alone keeps
// every payment to one effect.
TEST_P(RedisOutageTest, KilledMidRunFailOpenKeepsConsumingOnTheDatabaseGuard) {
  constexpr int kPayments = 100;
  const int64_t total = PublishPayments(kPayments, 3);
  ConsumerGroup group(2, [&](int) { return Consumer(FilterOutagePolicy::kOpen); });
  ASSERT_TRUE(WaitFor([&] { return gate_.entered.load(); }, 30'000));
  RunScript("kill");
  gate_.open = true;
  ASSERT_TRUE(WaitFor([&] { return QueueSettled(*queue_); }, 60'000)) << "fail-open must keep consuming";
  group.Stop();
  EXPECT_GT(group.Sum(&DecisionCounters::degraded), 0);
  ExpectExactlyOnce(group, kPayments, total);
}

// FLUSHALL mid-run: every DONE marker is forgotten; no payment is applied twice.
TEST_P(RedisOutageTest, FlushedMidRunNeverYieldsADuplicate) {
  constexpr int kPayments = 100;
  const int64_t total = PublishPayments(kPayments, 3);
  ConsumerGroup group(2, [&](int) { return Consumer(FilterOutagePolicy::kClosed); });
  ASSERT_TRUE(WaitFor([&] { return gate_.entered.load(); }, 30'000));
  RedisAdmin admin;
  EXPECT_EQ(admin.Call({"FLUSHALL"}), "OK");
  gate_.open = true;
  ASSERT_TRUE(WaitFor([&] { return QueueSettled(*queue_); }, 60'000));
  group.Stop();
  ExpectExactlyOnce(group, kPayments, total);
}

INSTANTIATE_TEST_SUITE_P(Guard, RedisOutageTest, ::testing::ValuesIn(GuardStores()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace idem::testing
