// The relay over the real SQLite store and embedded queue, with a manual clock:
// what reaches the broker, and what each row says afterwards.
#include "ops/outbox/relay.h"

#include <gtest/gtest.h>

#include <functional>

#include "core/pipeline_test_fixture.h"
#include "idem/embedded_queue.h"
#include "idem/handler.h"
#include "ops/outbox/outbox_row.h"
#include "testing/test_util.h"

namespace idem::outbox {
namespace {

using idem::PipelineFixture;

using testing::QueryInt;

// A publisher that runs `before` and then fails with `error` (or forwards when it is OK).
class ScriptedPublisher final : public Publisher {
 public:
  explicit ScriptedPublisher(Publisher& inner) : inner_(inner) {}
  Status PublishBatch(std::vector<Message>& messages, int64_t delay_ms) override {
    ++calls;
    if (before) before();
    if (!error.ok()) return error;
    Status s = inner_.PublishBatch(messages, delay_ms);
    if (after) after();
    return s;
  }
  Status error;
  std::function<void()> before;
  std::function<void()> after;
  int calls = 0;

 private:
  Publisher& inner_;
};

// The store, until `gone`: then every transaction fails to begin.
class GoneAfterPublish final : public Store {
 public:
  explicit GoneAfterPublish(Store& inner) : inner_(inner) {}
  Result<std::unique_ptr<StoreTx>> Begin() override {
    if (gone) return Status::Unavailable("store gone");
    return inner_.Begin();
  }
  Result<std::optional<Record>> ReadRecord(std::string_view group, std::string_view key) override {
    return inner_.ReadRecord(group, key);
  }
  Result<int64_t> SweepRecords(int64_t older_than_ms, int64_t max_rows) override {
    return inner_.SweepRecords(older_than_ms, max_rows);
  }
  Status ExecScript(std::string_view sql) override { return inner_.ExecScript(sql); }
  Result<SchemaReport> CheckSchema() override { return inner_.CheckSchema(); }
  Result<SchemaReport> MigrateSchema() override { return inner_.MigrateSchema(); }
  const SqlDialect& Dialect() const override { return inner_.Dialect(); }
  bool gone = false;

 private:
  Store& inner_;
};

// The pipeline's fixture gives the store, the queue and the manual clock.
class RelayTest : public PipelineFixture {
 protected:
  // Commits `n` outgoing messages the way a handler does: through HandlerContext::Emit.
  void Emit(int n, const std::string& prefix = "grant:") {
    auto tx = store_->Begin();
    ASSERT_TRUE(tx.ok());
    Message in;
    const std::string key = "pay:x";
    Payload payload;
    HandlerContext ctx{in, key, **tx, env_, payload};
    for (int i = 0; i < n; ++i)
      ASSERT_TRUE(ctx.Emit({"points.grant", prefix + std::to_string(next_++), "{}", {{"trace", "t"}}}).ok());
    ASSERT_TRUE((*tx)->Commit().ok());
  }

  // Commits one row per payload, all under the business key `key`.
  void EmitUnder(const std::string& key, const std::vector<std::string>& payloads) {
    auto tx = store_->Begin();
    ASSERT_TRUE(tx.ok());
    Message in;
    const std::string in_key = "pay:" + key;
    Payload payload;
    HandlerContext ctx{in, in_key, **tx, env_, payload};
    for (const std::string& p : payloads) ASSERT_TRUE(ctx.Emit({"points.grant", key, p, {}}).ok());
    ASSERT_TRUE((*tx)->Commit().ok());
  }

  std::vector<Message> PollAll() {
    auto got = queue_->Poll(1000, 0);
    EXPECT_TRUE(got.ok());
    return got.ok() ? *got : std::vector<Message>{};
  }

  RelayStep Step(Relay& relay) {
    auto step = relay.RelayOnce(env_.NowMs());
    EXPECT_TRUE(step.ok()) << step.status().ToString();
    return step.ok() ? *step : RelayStep{};
  }

  int64_t Rows(const std::string& where) {
    return QueryInt(*store_, "SELECT COUNT(*) FROM idem_outbox WHERE " + where);
  }

  int next_ = 0;
};

TEST_F(RelayTest, PublishesEachRowOnceWithItsBusinessKeyAndStableId) {
  Emit(3);
  Relay relay(*store_, queue_->publisher());
  RelayStep step = Step(relay);
  EXPECT_EQ(step.claimed, 3);
  EXPECT_EQ(step.published, 3);
  EXPECT_EQ(Step(relay).claimed, 0) << "a sent row is not published again";
  std::vector<Message> got = PollAll();
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].key, "grant:0");
  EXPECT_EQ(got[2].key, "grant:2");
  EXPECT_EQ(got[0].topic, "points.grant");
  EXPECT_EQ(got[0].headers.at("trace"), "t");
  EXPECT_EQ(got[0].id, got[0].headers.at(kOutboxIdHeader));
  EXPECT_EQ(Rows("state = 'SENT' AND message_id = '" + got[0].id + "'"), 1);
  EXPECT_EQ(Rows("state = 'SENT'"), 3);
}

TEST_F(RelayTest, FailedPublishBacksOffThenDeadLettersAfterMaxAttempts) {
  Emit(1);
  ScriptedPublisher publisher(queue_->publisher());
  publisher.error = Status::Unavailable("broker down");
  RelayOptions o;
  o.max_attempts = 3;
  o.backoff_initial_ms = 1'000;
  Relay relay(*store_, publisher, o);
  EXPECT_EQ(Step(relay).failed, 1);
  EXPECT_EQ(Step(relay).claimed, 0) << "not due before its backoff";
  env_.SleepMs(1'000);
  EXPECT_EQ(Step(relay).failed, 1);
  env_.SleepMs(1'999);
  EXPECT_EQ(Step(relay).claimed, 0) << "the second backoff is twice the first";
  env_.SleepMs(1);
  EXPECT_EQ(Step(relay).dead, 1);
  env_.SleepMs(1'000'000);
  EXPECT_EQ(Step(relay).claimed, 0) << "a dead row is never published";
  EXPECT_EQ(publisher.calls, 3);
  EXPECT_EQ(Rows("state = 'DEAD' AND attempts = 3 AND last_error LIKE 'publish attempt 3: %broker down%'"), 1);
  EXPECT_TRUE(PollAll().empty());
}

TEST_F(RelayTest, RecoversAfterAFailedPublishWithTheSameKeyAndId) {
  Emit(1);
  ScriptedPublisher publisher(queue_->publisher());
  publisher.error = Status::Unavailable("broker down");
  Relay relay(*store_, publisher);
  Step(relay);
  publisher.error = Status::OK();
  env_.SleepMs(1'000);
  EXPECT_EQ(Step(relay).published, 1);
  std::vector<Message> got = PollAll();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].key, "grant:0");
  EXPECT_EQ(Rows("state = 'SENT' AND attempts = 2 AND message_id = '" + got[0].id + "'"), 1);
}

TEST_F(RelayTest, ASecondRelayDoesNotTakeRowsTheFirstIsPublishing) {
  Emit(2);
  ScriptedPublisher publisher(queue_->publisher());
  Relay second(*store_, queue_->publisher());
  int64_t second_claimed = -1;
  publisher.before = [&] { second_claimed = Step(second).claimed; };
  Relay first(*store_, publisher);
  EXPECT_EQ(Step(first).published, 2);
  EXPECT_EQ(second_claimed, 0);
  EXPECT_EQ(PollAll().size(), 2u);
}

TEST_F(RelayTest, ARowConfirmedButNeverMarkedIsPublishedAgainAfterTheClaimExpires) {
  Emit(1);
  // The store refuses the mark after the confirm: like a relay that died in between.
  GoneAfterPublish store(*store_);
  ScriptedPublisher publisher(queue_->publisher());
  publisher.after = [&] { store.gone = true; };
  RelayOptions o;
  o.claim_ms = 30'000;
  Relay relay(store, publisher, o);
  EXPECT_FALSE(relay.RelayOnce(env_.NowMs()).ok());
  store.gone = false;
  publisher.after = nullptr;
  EXPECT_EQ(Step(relay).claimed, 0) << "still claimed";
  env_.SleepMs(30'000);
  EXPECT_EQ(Step(relay).published, 1);
  std::vector<Message> got = PollAll();
  ASSERT_EQ(got.size(), 2u) << "the copy is published again, at least once";
  EXPECT_EQ(got[0].key, got[1].key);
  EXPECT_EQ(got[0].headers.at(kOutboxIdHeader), got[1].headers.at(kOutboxIdHeader));
  EXPECT_EQ(Rows("state = 'SENT' AND attempts = 2"), 1);
}

// The first row of a key fails once and backs off; a second row of the same key
// is emitted meanwhile. Without per-key order the second overtakes the first.
std::vector<std::string> KeysInBrokerOrder(std::vector<Message> got) {
  std::vector<std::string> out;
  for (const Message& m : got) out.push_back(m.key + "/" + m.payload);
  return out;
}

TEST_F(RelayTest, PerKeyOrderHoldsALaterRowBackUntilTheEarlierOneIsSent) {
  EmitUnder("user:1", {"first"});
  ScriptedPublisher publisher(queue_->publisher());
  publisher.error = Status::Unavailable("broker down");
  RelayOptions o;
  o.per_key_order = true;
  o.backoff_initial_ms = 1'000;
  Relay relay(*store_, publisher, o);
  EXPECT_EQ(Step(relay).failed, 1);
  publisher.error = Status::OK();
  EmitUnder("user:1", {"second"});
  EmitUnder("user:2", {"other"});
  RelayStep step = Step(relay);
  EXPECT_EQ(step.published, 1) << "only the other key's row: user:1's second waits for its first";
  env_.SleepMs(1'000);
  EXPECT_EQ(Step(relay).published, 1) << "the first row, once due; the second still waits for its mark";
  EXPECT_EQ(Step(relay).published, 1);
  EXPECT_EQ(KeysInBrokerOrder(PollAll()),
            (std::vector<std::string>{"user:2/other", "user:1/first", "user:1/second"}));
}

TEST_F(RelayTest, PerKeyOrderClaimsOneRowPerKeyPerStep) {
  Emit(2, "same:");  // keys same:0, same:1: different keys, both go
  RelayOptions o;
  o.per_key_order = true;
  Relay relay(*store_, queue_->publisher(), o);
  EXPECT_EQ(Step(relay).published, 2);
  EmitUnder("k", {"0", "1", "2"});
  EXPECT_EQ(Step(relay).published, 1);
  EXPECT_EQ(Step(relay).published, 1);
  EXPECT_EQ(Step(relay).published, 1);
  EXPECT_EQ(Step(relay).claimed, 0);
  std::vector<Message> got = PollAll();
  ASSERT_EQ(got.size(), 5u);
  EXPECT_EQ(got[2].payload + got[3].payload + got[4].payload, "012");
}

TEST_F(RelayTest, CleansSentRowsInBoundedBatchesAfterTheRetention) {
  Emit(5);
  RelayOptions o;
  o.cleanup_batch = 2;
  o.sent_retention_ms = 60'000;
  Relay relay(*store_, queue_->publisher(), o);
  EXPECT_EQ(Step(relay).cleaned, 0);
  env_.SleepMs(60'001);
  EXPECT_EQ(Step(relay).cleaned, 2);
  EXPECT_EQ(Step(relay).cleaned, 2);
  EXPECT_EQ(Step(relay).cleaned, 1);
  EXPECT_EQ(Rows("1 = 1"), 0);
}

TEST_F(RelayTest, StatsCountRowsByState) {
  Emit(2);
  const int64_t emitted_at = env_.NowMs();
  Relay relay(*store_, queue_->publisher());
  auto before = ReadOutboxStats(*store_);
  ASSERT_TRUE(before.ok());
  EXPECT_EQ(before->pending, 2);
  EXPECT_EQ(before->oldest_pending_ms, emitted_at);
  Step(relay);
  auto after = ReadOutboxStats(*store_);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->pending, 0);
  EXPECT_EQ(after->sent, 2);
}

}  // namespace
}  // namespace idem::outbox
