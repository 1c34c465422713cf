// The simulator's Kafka model behaves as the Kafka adapter (src/source/kafka/)
// does where it matters to the pipeline: commits on a timer, a release without
// a seek back, FIFO retry topics, cooperative rebalances, lost assignments.
#include <gtest/gtest.h>

#include "sim/sim_broker.h"

namespace idem::sim {
namespace {

constexpr int64_t kMaxPollIntervalMs = 30'000;

Settlement Settle(const Message& m, Settlement::Kind kind, int64_t delay_ms = 0) {
  Settlement s;
  s.message = &m;
  s.kind = kind;
  s.delay_ms = delay_ms;
  s.reason = "busy";
  s.attempts = 1;
  return s;
}
constexpr auto kAck = Settlement::Kind::kAck;
constexpr auto kRetry = Settlement::Kind::kRetry;
constexpr auto kRelease = Settlement::Kind::kRelease;

class SimKafkaModel : public ::testing::Test {
 protected:
  // Retry topics unless a test asks for ordered retries (drawn per run otherwise).
  void Make(int consumers, int partitions, bool ordered_retries = false) {
    broker_ = std::make_unique<SimBroker>(&dice_, DeliveryModel::kKafka, consumers, partitions, kMaxPollIntervalMs);
    broker_->set_ordered_retries(ordered_retries);
  }
  void Publish(const std::string& id, const std::string& key) {
    Message m;
    m.id = id;
    m.key = key;
    m.topic = "pay";
    broker_->Publish(m);
  }
  static std::vector<std::string> Ids(const std::vector<Message>& got) {
    std::vector<std::string> ids;
    for (const Message& m : got) ids.push_back(m.id);
    return ids;
  }
  void Ack(int consumer, const std::vector<Message>& got) {
    std::vector<Settlement> s;
    for (const Message& m : got) s.push_back(Settle(m, kAck));
    broker_->Settle(consumer, s, /*crash_midway=*/false);
  }

  SimEnv env_{7};
  FaultPlan plan_;  // no faults
  Coverage coverage_;
  FaultDice dice_{&env_, &plan_, &coverage_};
  std::unique_ptr<SimBroker> broker_;
};

TEST_F(SimKafkaModel, ACrashBeforeTheCommitTimerHandsTheSettledRecordsOutAgain) {
  Make(1, 1);
  for (const char* id : {"a", "b", "c"}) Publish(id, "k");
  std::vector<Message> got = broker_->Poll(0, 10);
  ASSERT_EQ(got.size(), 3u);
  Ack(0, got);  // stored, not committed: the timer has not run yet
  broker_->Crash(0);
  EXPECT_EQ(Ids(broker_->Poll(0, 10)), (std::vector<std::string>{"a", "b", "c"}));
}

TEST_F(SimKafkaModel, SettledRecordsAreCommittedByTheTimer) {
  Make(1, 1);
  for (const char* id : {"a", "b"}) Publish(id, "k");
  Ack(0, broker_->Poll(0, 10));
  env_.Advance(SimBroker::kKafkaCommitIntervalMs);
  EXPECT_TRUE(broker_->Poll(0, 10).empty());  // the poll commits
  broker_->Crash(0);
  EXPECT_TRUE(broker_->Poll(0, 10).empty());
  EXPECT_TRUE(broker_->Drained());
}

TEST_F(SimKafkaModel, AReleaseHandsOutOnlyThatRecordAgainAfterItsDelay) {
  Make(1, 1);
  for (const char* id : {"a", "b", "c"}) Publish(id, "k");
  std::vector<Message> got = broker_->Poll(0, 10);
  ASSERT_EQ(got.size(), 3u);
  broker_->Settle(0, {Settle(got[0], kRelease, 100), Settle(got[1], kAck), Settle(got[2], kAck)}, false);
  EXPECT_TRUE(broker_->Poll(0, 10).empty());
  env_.Advance(100);
  std::vector<Message> again = broker_->Poll(0, 10);
  EXPECT_EQ(Ids(again), (std::vector<std::string>{"a"}));
  ASSERT_EQ(again.size(), 1u);
  EXPECT_TRUE(again[0].redelivered);
}

TEST_F(SimKafkaModel, ARetryTopicIsFifoARecordWaitsBehindOneDueLater) {
  Make(1, 1);
  Publish("first", "k");
  Publish("second", "k");
  std::vector<Message> got = broker_->Poll(0, 10);
  ASSERT_EQ(got.size(), 2u);
  broker_->Settle(0, {Settle(got[0], kRetry, 300)}, false);
  env_.JumpWallClock(-200);  // the wall clock steps back: "second" is due 200 ms before "first"
  broker_->Settle(0, {Settle(got[1], kRetry, 300)}, false);
  env_.Advance(350);  // "second" is due, but it sits behind "first" in the retry topic
  EXPECT_TRUE(broker_->Poll(0, 10).empty());
  env_.Advance(200);
  EXPECT_EQ(Ids(broker_->Poll(0, 10)), (std::vector<std::string>{"first", "second"}));
}

// Ordered retries (the adapter's default): one record per key is out; its
// key's later records wait behind it while the other keys go on, and a retry
// stays in place and comes back after its delay.
TEST_F(SimKafkaModel, AnOrderedRetryHoldsItsKeysLaterRecordsAndOnlyThose) {
  Make(1, 1, /*ordered_retries=*/true);
  for (const char* id : {"a1", "b1", "a2", "b2"}) Publish(id, /*key=*/std::string(1, id[0]));
  std::vector<Message> got = broker_->Poll(0, 10);
  ASSERT_EQ(Ids(got), (std::vector<std::string>{"a1", "b1"}));
  broker_->Settle(0, {Settle(got[0], kRetry, 300), Settle(got[1], kAck)}, false);
  std::vector<Message> b2 = broker_->Poll(0, 10);
  EXPECT_EQ(Ids(b2), (std::vector<std::string>{"b2"})) << "key b goes on while a1 waits for its retry";
  Ack(0, b2);
  EXPECT_TRUE(broker_->Poll(0, 10).empty()) << "a2 waits behind a1";
  env_.Advance(300);
  std::vector<Message> again = broker_->Poll(0, 10);
  ASSERT_EQ(Ids(again), (std::vector<std::string>{"a1"}));
  EXPECT_TRUE(again[0].redelivered);
  Ack(0, again);
  EXPECT_EQ(Ids(broker_->Poll(0, 10)), (std::vector<std::string>{"a2"}));
}

TEST_F(SimKafkaModel, AHeldRecordsOffsetIsNotCommittedPastAndTheKeyKeepsItsOrderAfterACrash) {
  Make(1, 1, /*ordered_retries=*/true);
  for (const char* id : {"a1", "b1", "a2"}) Publish(id, /*key=*/std::string(1, id[0]));
  std::vector<Message> got = broker_->Poll(0, 10);
  ASSERT_EQ(Ids(got), (std::vector<std::string>{"a1", "b1"}));
  broker_->Settle(0, {Settle(got[0], kRetry, 60'000), Settle(got[1], kAck)}, false);
  env_.Advance(SimBroker::kKafkaCommitIntervalMs);
  EXPECT_TRUE(broker_->Poll(0, 10).empty());  // commits what it may: nothing past a1
  broker_->Crash(0);
  EXPECT_EQ(Ids(broker_->Poll(0, 10)), (std::vector<std::string>{"a1", "b1"}))
      << "read again from a1; a2 still waits behind it";
}

TEST_F(SimKafkaModel, ACooperativeRebalanceRereadsOnlyThePartitionThatMoves) {
  Make(2, 2);
  broker_->set_cooperative(true);
  for (int i = 0; i < 40; ++i) Publish("m" + std::to_string(i), "key" + std::to_string(i));
  for (int c = 0; c < 2; ++c) Ack(c, broker_->Poll(c, 100));
  broker_->Rebalance();  // nothing was committed yet: the revoked partition commits at revocation
  broker_->Crash(0);
  broker_->Crash(1);
  size_t again = broker_->Poll(0, 100).size() + broker_->Poll(1, 100).size();
  EXPECT_GT(again, 0u) << "the partition that stayed has nothing committed: a crash re-reads it";
  EXPECT_LT(again, 40u) << "the moved partition committed at its revocation";
}

TEST_F(SimKafkaModel, AnEagerRebalanceRevokesAndCommitsEveryPartition) {
  Make(2, 2);
  broker_->set_cooperative(false);
  for (int i = 0; i < 40; ++i) Publish("m" + std::to_string(i), "key" + std::to_string(i));
  for (int c = 0; c < 2; ++c) Ack(c, broker_->Poll(c, 100));
  broker_->Rebalance();
  broker_->Crash(0);
  broker_->Crash(1);
  EXPECT_TRUE(broker_->Poll(0, 100).empty());
  EXPECT_TRUE(broker_->Poll(1, 100).empty());
}

TEST_F(SimKafkaModel, ABatchThatOutlivesMaxPollIntervalLosesItsAssignmentAndCommitsNothing) {
  Make(1, 1);
  for (const char* id : {"a", "b"}) Publish(id, "k");
  std::vector<Message> got = broker_->Poll(0, 10);
  env_.Advance(kMaxPollIntervalMs + 1);  // the handler was slow
  Ack(0, got);
  EXPECT_EQ(broker_->refused_acks(), 2);
  EXPECT_EQ(Ids(broker_->Poll(0, 10)), (std::vector<std::string>{"a", "b"}));
}

}  // namespace
}  // namespace idem::sim
