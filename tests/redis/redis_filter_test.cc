// The Redis fast filter against a real redis-server: its contract (NX marker,
// DONE with a TTL, release on failure, outages as non-OK statuses) and the
// pipeline around it, with the SQLite store as the durable guard. Every test
// uses its own key prefix, so tests share the server safely.
#include <gtest/gtest.h>

#include "idem/embedded_queue.h"
#include "idem/pipeline.h"
#include "redis/redis_test_support.h"
#include "testing/consumer_group.h"
#include "testing/test_util.h"

namespace idem::testing {
namespace {

using V = FilterVerdict;

class RedisFilterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (RedisTestUrl().empty()) GTEST_SKIP() << kNoRedis;
    prefix_ = UniqueKeyPrefix();
    options_ = TestFilterOptions(prefix_);
    filter_ = OpenFilterOrFail(RedisTestUrl(), options_);
    ASSERT_NE(filter_, nullptr);
  }

  // Requests for `keys`, all with the fingerprint `fp`.
  static std::vector<FilterRequest> Req(const std::vector<std::string>& keys, const std::string& fp = "fp1") {
    std::vector<FilterRequest> out;
    for (const std::string& k : keys) out.push_back({k, fp});
    return out;
  }

  std::vector<V> Mark(FastFilter& f, std::vector<std::string> keys, int64_t lease_ms = 60'000,
                      const std::string& fp = "fp1") {
    auto v = f.Mark(Req(keys, fp), lease_ms);
    EXPECT_TRUE(v.ok()) << v.status().ToString();
    return v.ok() ? *v : std::vector<V>();
  }

  std::string prefix_;
  RedisFilterOptions options_;
  std::unique_ptr<FastFilter> filter_;
  RedisAdmin admin_;
};

TEST_F(RedisFilterTest, MarkIsNewThenInFlightForOthersThenDoneAfterFinish) {
  auto other = OpenFilterOrFail(RedisTestUrl(), options_);
  EXPECT_EQ(Mark(*filter_, {"a", "b"}), (std::vector<V>{V::kNew, V::kNew}));
  EXPECT_EQ(Mark(*other, {"a", "c"}), (std::vector<V>{V::kInFlight, V::kNew}));
  EXPECT_EQ(admin_.Call({"GET", prefix_ + "a"}), "P:fp1");
  std::vector<std::string> release{"b"};
  ASSERT_TRUE(filter_->Finish(Req({"a"}), 3'600'000, release).ok());
  EXPECT_EQ(admin_.Call({"GET", prefix_ + "a"}), "D:fp1");
  EXPECT_EQ(Mark(*other, {"a", "b"}), (std::vector<V>{V::kDone, V::kNew}));
}

TEST_F(RedisFilterTest, SameKeyWithAnotherPayloadIsNeverADuplicate) {
  Mark(*filter_, {"a", "b"});
  ASSERT_TRUE(filter_->Finish(Req({"a"}), 3'600'000, {}).ok());
  // "a" is DONE and "b" in flight, both under fingerprint fp1: another payload
  // must go to the database (which reports the conflict), not be acked.
  EXPECT_EQ(Mark(*filter_, {"a", "b"}, 60'000, "fp2"), (std::vector<V>{V::kDifferentPayload, V::kDifferentPayload}));
}

TEST_F(RedisFilterTest, MarkersCarryTheLeaseAndDoneKeysTheTtl) {
  Mark(*filter_, {"k"}, 30'000);
  const int64_t lease_left = std::stoll(admin_.Call({"PTTL", prefix_ + "k"}));
  EXPECT_GT(lease_left, 0);
  EXPECT_LE(lease_left, 30'000);
  ASSERT_TRUE(filter_->Finish(Req({"k"}), 86'400'000, {}).ok());
  const int64_t ttl_left = std::stoll(admin_.Call({"PTTL", prefix_ + "k"}));
  EXPECT_GT(ttl_left, 30'000);
  EXPECT_LE(ttl_left, 86'400'000);
}

TEST_F(RedisFilterTest, AMarkerWhoseWorkerVanishedExpiresWithItsLease) {
  auto crashed = OpenFilterOrFail(RedisTestUrl(), options_);
  Mark(*crashed, {"k"}, 20);  // marks, then never finishes
  crashed.reset();
  EXPECT_TRUE(WaitFor([&] { return Mark(*filter_, {"k"}, 60'000) == std::vector<V>{V::kNew}; }, 10'000));
}

TEST_F(RedisFilterTest, UnreachableRedisIsAnUnavailableStatusThatSaysWhere) {
  auto f = OpenFilterOrFail("redis://127.0.0.1:1", options_);  // nothing listens on port 1
  const auto keys = Req({"k"});
  for (int i = 0; i < 3; ++i) {  // the first call tries to connect; later ones may be in back-off
    auto v = f->Mark(keys, 1000);
    ASSERT_FALSE(v.ok());
    EXPECT_EQ(v.status().code(), Status::Code::kUnavailable) << v.status().ToString();
    EXPECT_NE(v.status().message().find("127.0.0.1:1"), std::string::npos) << v.status().ToString();
  }
  EXPECT_FALSE(f->Finish(keys, 1000, {}).ok());
}

TEST_F(RedisFilterTest, ADroppedConnectionFailsOneCallAndTheNextReconnects) {
  Mark(*filter_, {"a"});
  ASSERT_GE(admin_.KillClientsNamed(options_.client_name), 1);
  auto v = filter_->Mark(Req({"b"}), 60'000);
  EXPECT_EQ(v.status().code(), Status::Code::kUnavailable) << "the kill must surface, not be hidden";
  EXPECT_EQ(Mark(*filter_, {"a", "c"}), (std::vector<V>{V::kInFlight, V::kNew}));
}

TEST_F(RedisFilterTest, BadUrlsAreRefusedAtOpen) {
  EXPECT_EQ(OpenRedisFilter("localhost:6379").status().code(), Status::Code::kInvalidArgument);
  RedisFilterOptions o;
  o.client_name = "has space";
  EXPECT_EQ(OpenRedisFilter("redis://127.0.0.1", o).status().code(), Status::Code::kInvalidArgument);
}

// The pipeline with the filter in front of the SQLite guard.
class RedisPipelineTest : public RedisFilterTest {
 protected:
  void SetUp() override {
    RedisFilterTest::SetUp();
    if (IsSkipped()) return;
    auto s = OpenSqliteStore(dir_.File("store.db"), {}, Env::Default());
    ASSERT_TRUE(s.ok());
    store_ = std::move(*s);
    CreateEffectTables(*store_);
    queue_ = OpenQueue();
  }

  std::unique_ptr<EmbeddedQueue> OpenQueue() {
    auto q = EmbeddedQueue::Open(dir_.File("queue.db"), {}, Env::Default());
    EXPECT_TRUE(q.ok()) << q.status().ToString();
    return q.ok() ? std::move(*q) : nullptr;
  }

  std::unique_ptr<Pipeline> Make(FastFilter* filter, FilterOutagePolicy policy, Store* store = nullptr,
                                 Source* source = nullptr) {
    PipelineOptions o;
    o.max_linger_ms = 0;
    o.lease_ms = 2'000;  // messages held back as in flight return quickly
    o.unavailable_backoff_min_ms = 5;
    o.unavailable_backoff_max_ms = 50;
    auto p = std::make_unique<Pipeline>(source ? source : queue_.get(), store ? store : store_.get(),
                                        Env::Default(), o);
    EXPECT_TRUE(p->Register(PayHandler()).ok());
    FastFilterOptions f;
    f.outage_policy = policy;
    EXPECT_TRUE(p->SetFastFilter(filter, f).ok());
    return p;
  }

  void Publish(const std::string& payload, const std::string& id) {
    Message m;
    m.id = id;
    m.topic = "pay";
    m.payload = payload;
    ASSERT_TRUE(queue_->Publish(m).ok());
  }

  void Drain(Pipeline& p) {
    ASSERT_TRUE(WaitFor(
        [&] {
          p.RunOnce();
          return QueueSettled(*queue_);
        },
        30'000));
  }

  TempDir dir_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<EmbeddedQueue> queue_;
};

TEST_F(RedisPipelineTest, TtlShorterThanTheRetryWindowIsRefusedAtStartup) {
  Pipeline p(queue_.get(), store_.get(), Env::Default(), PipelineOptions{});
  FastFilterOptions f;
  f.ttl_ms = PipelineOptions{}.retry.RetryWindowMs() - 1;
  Status s = p.SetFastFilter(filter_.get(), f);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("raise ttl_ms"), std::string::npos) << s.ToString();
  f.ttl_ms += 1;
  EXPECT_TRUE(p.SetFastFilter(filter_.get(), f).ok());
}

TEST_F(RedisPipelineTest, ACommittedKeyFiltersLaterCopiesWithoutTheDatabase) {
  auto p = Make(filter_.get(), FilterOutagePolicy::kClosed);
  Publish(R"({"payment_id":"P1","amount":10})", "a");
  Drain(*p);
  Publish(R"({"payment_id":"P1","amount":10})", "b");
  Publish(R"({"payment_id":"P1","amount":10})", "c");
  Drain(*p);
  EXPECT_EQ(CountEffects(*store_), 1);
  const DecisionCounters& c = p->counters();
  EXPECT_EQ(c.first, 1);
  EXPECT_EQ(c.duplicate, 2);
  EXPECT_EQ(c.passed_to_db, 1);
  EXPECT_EQ(c.filtered, 1) << "the later batch's first copy; the second is its in-batch copy";
  EXPECT_EQ(c.degraded, 0);
  EXPECT_EQ(admin_.Call({"GET", prefix_ + "7:default:pay:P1"}).substr(0, 2), "D:") << "DONE with the fingerprint";
  auto r = store_->ReadRecord("default", "pay:P1");
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((*r)->duplicates, 0) << "filtered copies never reached the record";
}

TEST_F(RedisPipelineTest, AFailedMessageReleasesItsKeySoTheRetryIsNotHeldBack) {
  auto p = Make(filter_.get(), FilterOutagePolicy::kClosed);
  Publish(R"({"payment_id":"P9","amount":10,"fail":"retryable"})", "a");
  p->RunOnce();
  EXPECT_EQ(p->counters().retried, 1);
  EXPECT_EQ(admin_.Call({"EXISTS", prefix_ + "7:default:pay:P9"}), "0") << "released, not kept";
  EXPECT_EQ(CountEffects(*store_), 0);
}

TEST_F(RedisPipelineTest, LostKeysNeverYieldADuplicateEffect) {
  auto p = Make(filter_.get(), FilterOutagePolicy::kClosed);
  for (int i = 0; i < 20; ++i) Publish(R"({"payment_id":"P)" + std::to_string(i) + R"(","amount":1})", "a" + std::to_string(i));
  Drain(*p);
  // Eviction, expiry, a restart or a failover: the filter forgets everything.
  ASSERT_EQ(admin_.DeleteKeysWithPrefix(prefix_), 20);
  for (int i = 0; i < 20; ++i) Publish(R"({"payment_id":"P)" + std::to_string(i) + R"(","amount":1})", "b" + std::to_string(i));
  Drain(*p);
  EXPECT_EQ(CountEffects(*store_), 20);
  EXPECT_EQ(Balance(*store_, "u1"), 1000000 - 20);
  const DecisionCounters& c = p->counters();
  EXPECT_EQ(c.filtered, 0);
  EXPECT_EQ(c.passed_to_db, 40);
  EXPECT_EQ(c.duplicate - c.filtered, 20) << "every copy was caught by the database guard";
}

TEST_F(RedisPipelineTest, UnreachableRedisFailClosedTakesNothingFailOpenRelyOnTheDatabase) {
  auto down = OpenFilterOrFail("redis://127.0.0.1:1", options_);
  Publish(R"({"payment_id":"P1","amount":10})", "a");
  Publish(R"({"payment_id":"P1","amount":10})", "b");
  auto closed = Make(down.get(), FilterOutagePolicy::kClosed);
  BatchReport r = closed->RunOnce();
  EXPECT_EQ(r.released, 2u) << "the message and its in-batch copy";
  EXPECT_EQ(CountEffects(*store_), 0) << "fail-closed: nothing is processed while Redis is down";
  EXPECT_GE(closed->counters().degraded, 1);
  auto stats = queue_->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->delayed + stats->ready, 2) << "both copies went back to the broker, none was lost";

  auto open = Make(down.get(), FilterOutagePolicy::kOpen);
  Publish(R"({"payment_id":"P1","amount":10})", "c");
  Drain(*open);
  EXPECT_EQ(CountEffects(*store_), 1) << "fail-open: the database guard alone stops the copies";
  EXPECT_EQ(open->counters().first, 1);
  EXPECT_EQ(open->counters().duplicate, 2);
  EXPECT_GE(open->counters().degraded, 1);
}

}  // namespace
}  // namespace idem::testing
