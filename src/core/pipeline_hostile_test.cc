// Hostile payloads through the whole pipeline (SQLite store, embedded queue):
// a payload that cannot be keyed is parked byte-exact with a reason that names
// the problem, its neighbours in the same batch are applied, and two payments
// whose ids differ only beyond a double's precision are both applied.
#include "core/pipeline_test_fixture.h"

namespace idem {
namespace {

using testing::CountEffects;
using testing::PayHandler;

class PipelineHostileTest : public PipelineFixture {
 protected:
  // One batch holds everything published: the hostile message and its neighbours.
  BatchReport RunOneBatch(PipelineOptions o = {}) {
    o.max_linger_ms = 0;
    o.batch_size = 100;
    Pipeline p(queue_.get(), store_.get(), &env_, o);
    EXPECT_TRUE(p.Register(PayHandler()).ok());
    BatchReport r = p.RunOnce();
    EXPECT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(p.RunOnce().polled, 0u) << "everything should have been settled in the first batch";
    return r;
  }

  std::vector<DeadLetter> Dead() {
    auto d = queue_->List(100);
    EXPECT_TRUE(d.ok()) << d.status().ToString();
    return d.ok() ? *d : std::vector<DeadLetter>{};
  }
};

TEST_F(PipelineHostileTest, TwoPaymentsWhoseIdsDifferBeyondDoublePrecisionAreBothApplied) {
  Publish(R"({"payment_id":1234567890123456789012345,"amount":7})");
  Publish(R"({"payment_id":1234567890123456789012346,"amount":7})");
  BatchReport r = RunOneBatch();
  EXPECT_EQ(r.first, 2u);
  EXPECT_EQ(r.duplicate, 0u);
  EXPECT_EQ(CountEffects(*store_), 2);  // two rows in the ledger: no payment lost
  EXPECT_EQ(CountEffects(*store_, "pay:1234567890123456789012345"), 1);
  EXPECT_EQ(CountEffects(*store_, "pay:1234567890123456789012346"), 1);
  EXPECT_TRUE(Dead().empty());
}

TEST_F(PipelineHostileTest, DeepNestingIsParkedByteExactAndItsNeighboursAreApplied) {
  const std::string deep =
      "{\"payment_id\":\"P-deep\",\"amount\":1,\"x\":" + std::string(100'000, '[') + std::string(100'000, ']') + "}";
  Publish(R"({"payment_id":"P1","amount":5})");
  Publish(deep);
  Publish(R"({"payment_id":"P2","amount":6})");
  PipelineOptions o;
  o.max_payload_bytes = 1 << 20;
  BatchReport r = RunOneBatch(o);
  EXPECT_EQ(r.polled, 3u);
  EXPECT_EQ(r.first, 2u);
  EXPECT_EQ(r.parked, 1u);
  EXPECT_EQ(CountEffects(*store_), 2);
  auto dead = Dead();
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].message.payload, deep);
  EXPECT_NE(dead[0].reason.find("nests 100001 levels deep, over the limit of 64"), std::string::npos)
      << dead[0].reason;
}

TEST_F(PipelineHostileTest, DepthLimitIsAnOption) {
  const std::string at_limit = "{\"payment_id\":\"P1\",\"amount\":5,\"x\":" + std::string(63, '[') +
                               std::string(63, ']') + "}";
  const std::string over = "{\"payment_id\":\"P2\",\"amount\":5,\"x\":[[[]]]}";
  Publish(at_limit);
  Publish(over);
  PipelineOptions o;
  o.max_json_depth = 64;
  EXPECT_EQ(RunOneBatch(o).first, 2u);  // 64 levels are within the default

  Publish(R"({"payment_id":"P3","amount":5,"x":[[[]]]})");
  o.max_json_depth = 3;
  BatchReport r = RunOneBatch(o);
  EXPECT_EQ(r.parked, 1u);
  auto dead = Dead();
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_NE(dead[0].reason.find("nests 4 levels deep, over the limit of 3 (max_json_depth)"), std::string::npos)
      << dead[0].reason;
}

TEST_F(PipelineHostileTest, NumberBeyondDoubleRangeIsAKeyAndTheHandlerDecides) {
  // 1e400 as the id is a key like any other, and the consumer stays up. The
  // test handler's JSON library cannot read the payload and throws: the message
  // is retried, then parked byte-exact with the exception's text.
  const std::string huge = R"({"payment_id":1e400,"amount":5})";
  Publish(huge);
  Publish(R"({"payment_id":"P1","amount":6})");
  PipelineOptions o;
  o.max_linger_ms = 0;
  o.retry.max_attempts = 2;
  Pipeline p(queue_.get(), store_.get(), &env_, o);
  ASSERT_TRUE(p.Register(PayHandler()).ok());
  BatchReport r = p.RunOnce();
  EXPECT_EQ(r.polled, 2u);
  EXPECT_EQ(r.retried, 1u);
  EXPECT_EQ(CountEffects(*store_, "pay:P1"), 1);
  auto record = store_->ReadRecord("default", "pay:1e400");
  ASSERT_TRUE(record.ok() && record->has_value()) << "the message was keyed by the number's exact text";
  for (int i = 0; i < 10 && Dead().empty(); ++i) {
    env_.Advance(3'600'000);  // past any retry delay
    (void)p.RunOnce();
  }
  auto dead = Dead();
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].message.payload, huge);
  EXPECT_NE(dead[0].reason.find("1e400"), std::string::npos) << dead[0].reason;
  EXPECT_EQ(CountEffects(*store_), 1);
}

TEST_F(PipelineHostileTest, InvalidUtf8IsParkedWithItsReason) {
  const std::string bad = "{\"payment_id\":\"P\xc3\x28\",\"amount\":5}";
  Publish(bad);
  Publish(R"({"payment_id":"P1","amount":6})");
  BatchReport r = RunOneBatch();
  EXPECT_EQ(r.parked, 1u);
  EXPECT_EQ(CountEffects(*store_), 1);
  auto dead = Dead();
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].message.payload, bad);
  EXPECT_NE(dead[0].reason.find("not valid UTF-8"), std::string::npos) << dead[0].reason;
}

}  // namespace
}  // namespace idem
