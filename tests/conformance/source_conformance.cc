#include "conformance/source_conformance.h"

#include <set>

#include "core/reserved_headers.h"

namespace idem::testing {

void SourceConformance::SetUp() {
  location_ = GetParam().fresh_queue();
  if (IsSkipped()) return;  // a server backend without its server skips with a reason
  broker_ = Connect();
  ASSERT_NE(broker_, nullptr);
}

std::unique_ptr<Broker> SourceConformance::Connect() { return GetParam().open(location_); }

void SourceConformance::Publish(const std::vector<std::string>& payloads, int64_t delay_ms) {
  std::vector<Message> batch;
  for (const std::string& p : payloads) {
    Message m;
    m.topic = "pay";
    m.payload = p;
    batch.push_back(std::move(m));
  }
  Status s = broker_->publisher().PublishBatch(batch, delay_ms);
  ASSERT_TRUE(s.ok()) << s.ToString();
}

std::vector<Message> SourceConformance::Take(Broker& b, size_t n) {
  std::vector<Message> got;
  for (int polls = 0; got.size() < n && polls < 150; ++polls) {
    auto r = b.source().Poll(n - got.size(), 200);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) break;
    for (Message& m : *r) got.push_back(std::move(m));
  }
  return got;
}

std::vector<Message> SourceConformance::TakeNothing(Broker& b) {
  auto r = b.source().Poll(10, 300);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(*r) : std::vector<Message>{};
}

Status SourceConformance::Settle(Broker& b, const Message& m, Settlement::Kind kind, int64_t delay_ms,
                                 const std::string& reason, int attempts) {
  return b.source().Settle({Settlement{&m, kind, delay_ms, reason, attempts}});
}

std::vector<DeadLetter> SourceConformance::Dead(Broker& b) {
  if (!b.dead_letters()) {
    ADD_FAILURE() << GetParam().name << " has no dead-letter console (Broker::dead_letters() is null): "
                  << "this case needs one to see where parked messages went";
    return {};
  }
  auto r = b.dead_letters()->List(100);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(*r) : std::vector<DeadLetter>{};
}

namespace {

std::set<std::string> Payloads(const std::vector<Message>& ms) {
  std::set<std::string> out;
  for (const Message& m : ms) out.insert(m.payload);
  return out;
}

TEST_P(SourceConformance, DeliversWhatWasPublishedWithItsTopicKeyAndHeaders) {
  std::vector<Message> batch(1);
  batch[0].topic = "pay.success";
  batch[0].key = "P-1";
  batch[0].headers["x-trace"] = "t-42";
  batch[0].payload = R"({"payment_id":"P-1","amount":5})";
  ASSERT_TRUE(broker_->publisher().PublishBatch(batch, 0).ok());
  EXPECT_FALSE(batch[0].id.empty()) << "PublishBatch fills in the message id";

  auto got = Take(*broker_, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].topic, "pay.success");
  EXPECT_EQ(got[0].key, "P-1");
  EXPECT_EQ(got[0].payload, batch[0].payload);
  EXPECT_EQ(got[0].id, batch[0].id);
  ASSERT_TRUE(got[0].headers.count("x-trace"));
  EXPECT_EQ(got[0].headers.at("x-trace"), "t-42");
  EXPECT_FALSE(got[0].redelivered);
  EXPECT_EQ(got[0].delivery_count, 1);
}

// At least once: what a consumer held without settling comes back, marked as
// redelivered, to the next consumer; what it acked never does.
TEST_P(SourceConformance, UnsettledMessagesOutliveTheirConsumerAndAckedOnesDoNot) {
  Publish({"m0", "m1", "m2", "m3"});
  {
    auto first = Connect();
    ASSERT_NE(first, nullptr);
    auto held = Take(*first, 4);
    ASSERT_EQ(held.size(), 4u);
    ASSERT_TRUE(first->source().Settle({Settlement{&held[0], Settlement::Kind::kAck, 0, ""},
                               Settlement{&held[1], Settlement::Kind::kAck, 0, ""}})
                    .ok());
    ASSERT_TRUE(first->source().Abandon().ok());  // dies holding two
  }
  auto again = Take(*broker_, 2);
  ASSERT_EQ(again.size(), 2u);
  std::set<std::string> acked{"m0", "m1"};
  for (const Message& m : again) {
    EXPECT_EQ(acked.count(m.payload), 0u) << m.payload << " was acked and came back";
    EXPECT_TRUE(m.redelivered) << m.payload;
    EXPECT_GE(m.delivery_count, 2) << m.payload;
  }
  for (const Message& m : again) ASSERT_TRUE(Settle(*broker_, m, Settlement::Kind::kAck).ok());
  EXPECT_TRUE(TakeNothing(*broker_).empty());
}

// Receipts are the Source's own: another client of the same queue cannot settle
// what this one holds, and a message is settled once.
TEST_P(SourceConformance, ASourceRefusesReceiptsItDidNotHandOutOrHasSettled) {
  Publish({"mine"});
  auto held = Take(*broker_, 1);
  ASSERT_EQ(held.size(), 1u);
  auto other = Connect();
  ASSERT_NE(other, nullptr);
  EXPECT_FALSE(Settle(*other, held[0], Settlement::Kind::kAck).ok()) << "another client acked what this one holds";
  ASSERT_TRUE(Settle(*broker_, held[0], Settlement::Kind::kAck).ok());
  EXPECT_FALSE(Settle(*broker_, held[0], Settlement::Kind::kAck).ok()) << "settled twice";
  ASSERT_TRUE(other->source().Abandon().ok());
  EXPECT_TRUE(TakeNothing(*broker_).empty());
}

TEST_P(SourceConformance, AbandonHandsEverythingBackAtOnceMarkedAsRedelivered) {
  Publish({"a", "b", "c"});
  auto held = Take(*broker_, 3);
  ASSERT_EQ(held.size(), 3u);
  ASSERT_TRUE(broker_->source().Abandon().ok());
  auto again = Take(*broker_, 3);
  ASSERT_EQ(again.size(), 3u);
  EXPECT_EQ(Payloads(again), Payloads(held));
  for (const Message& m : again) {
    EXPECT_TRUE(m.redelivered);
    EXPECT_GE(m.delivery_count, 2);
  }
}

// A settlement that arrives after its copy was abandoned (a stalled consumer
// finishing late) must not touch the copy its new holder works on.
TEST_P(SourceConformance, ALateSettlementAfterAbandonDoesNothing) {
  Publish({"late-ack", "late-park"});
  auto held = Take(*broker_, 2);
  ASSERT_EQ(held.size(), 2u);
  ASSERT_TRUE(broker_->source().Abandon().ok());
  auto again = Take(*broker_, 2);
  ASSERT_EQ(again.size(), 2u);

  Status late = broker_->source().Settle({Settlement{&held[0], Settlement::Kind::kAck, 0, ""},
                                 Settlement{&held[1], Settlement::Kind::kPark, 0, "late"}});
  EXPECT_TRUE(late.ok()) << late.ToString();
  EXPECT_TRUE(Dead(*broker_).empty()) << "the late park of an abandoned copy must not move it";

  ASSERT_TRUE(broker_->source().Abandon().ok());  // the new holder gives them back: both still exist
  auto third = Take(*broker_, 2);
  ASSERT_EQ(third.size(), 2u) << "a late ack deleted a copy its new holder was working on";
  EXPECT_EQ(Payloads(third), Payloads(held));
}

TEST_P(SourceConformance, RetryComesBackAfterItsDelayAsTheSameMessage) {
  Publish({"retry-me"});
  auto held = Take(*broker_, 1);
  ASSERT_EQ(held.size(), 1u);
  ASSERT_TRUE(Settle(*broker_, held[0], Settlement::Kind::kRetry, 300, "balance too low").ok());
  auto back = Take(*broker_, 1);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].payload, "retry-me");
  EXPECT_EQ(back[0].id, held[0].id);
  EXPECT_EQ(back[0].topic, "pay");
  ASSERT_TRUE(Settle(*broker_, back[0], Settlement::Kind::kAck).ok());
  EXPECT_TRUE(TakeNothing(*broker_).empty());
}

TEST_P(SourceConformance, RetryWaitsForItsDelay) {
  Publish({"later"});
  auto held = Take(*broker_, 1);
  ASSERT_EQ(held.size(), 1u);
  ASSERT_TRUE(Settle(*broker_, held[0], Settlement::Kind::kRetry, 300'000, "not yet").ok());
  EXPECT_TRUE(TakeNothing(*broker_).empty()) << "a 5 min retry delay came back at once";
}

// The move to the delay tier is durable when Settle returns: a consumer that
// dies right after it loses nothing.
TEST_P(SourceConformance, ARetriedMessageSurvivesItsConsumer) {
  Publish({"survivor"});
  {
    auto first = Connect();
    ASSERT_NE(first, nullptr);
    auto held = Take(*first, 1);
    ASSERT_EQ(held.size(), 1u);
    ASSERT_TRUE(Settle(*first, held[0], Settlement::Kind::kRetry, 300, "try later").ok());
    ASSERT_TRUE(first->source().Abandon().ok());
  }
  auto back = Take(*broker_, 1);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].payload, "survivor");
  ASSERT_TRUE(Settle(*broker_, back[0], Settlement::Kind::kAck).ok());
  EXPECT_TRUE(TakeNothing(*broker_).empty()) << "the original was not acked by the retry";
}

TEST_P(SourceConformance, ReleaseGivesTheMessageItselfBack) {
  Publish({"release-me"});
  auto held = Take(*broker_, 1);
  ASSERT_EQ(held.size(), 1u);
  ASSERT_TRUE(Settle(*broker_, held[0], Settlement::Kind::kRelease, 0, "database unavailable").ok());
  auto back = Take(*broker_, 1);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].payload, "release-me");
  EXPECT_EQ(back[0].id, held[0].id);
  EXPECT_TRUE(back[0].redelivered);
}

// A parked message is in the dead-letter queue, for every client, byte-exact,
// with its reason, when Settle returns; the original is gone from the queue.
TEST_P(SourceConformance, ParkedMessagesAreDeadLettersWithTheirReasonByteExact) {
  static constexpr char kBytes[] = "{\"amount\":1e400,\"raw\":\"\xff\xfe\x00\x01\"}";
  const std::string bytes(kBytes, sizeof kBytes - 1);  // the NUL inside counts, the terminator does not
  std::vector<Message> batch(1);
  batch[0].topic = "pay";
  batch[0].payload = bytes;
  ASSERT_TRUE(broker_->publisher().PublishBatch(batch, 0).ok());
  auto held = Take(*broker_, 1);
  ASSERT_EQ(held.size(), 1u);
  ASSERT_EQ(held[0].payload, bytes);
  ASSERT_TRUE(Settle(*broker_, held[0], Settlement::Kind::kPark, 0, "payload is not valid JSON").ok());

  auto other = Connect();
  ASSERT_NE(other, nullptr);
  auto dead = Dead(*other);
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].reason, "payload is not valid JSON");
  EXPECT_EQ(dead[0].message.payload, bytes);
  EXPECT_EQ(dead[0].message.topic, "pay");
  EXPECT_GE(dead[0].attempts, 1);
  EXPECT_GT(dead[0].last_failed_ms, 0);
  auto one = other->dead_letters()->Get(dead[0].id);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  ASSERT_TRUE(one->has_value());
  EXPECT_EQ((*one)->message.payload, bytes);

  ASSERT_TRUE(broker_->source().Abandon().ok());
  EXPECT_TRUE(TakeNothing(*broker_).empty()) << "the parked original was delivered again";
}

// Attempts are the consumption record's: the dead letter shows the count the
// park carried, whatever the message went through in the broker.
TEST_P(SourceConformance, AFailedMessageGivenUpAfterRetriesShowsTheAttemptsItWasParkedWith) {
  Publish({"give-up"});
  auto held = Take(*broker_, 1);
  ASSERT_EQ(held.size(), 1u);
  ASSERT_TRUE(Settle(*broker_, held[0], Settlement::Kind::kRetry, 300, "first failure").ok());
  auto back = Take(*broker_, 1);
  ASSERT_EQ(back.size(), 1u);
  ASSERT_TRUE(Settle(*broker_, back[0], Settlement::Kind::kPark, 0, "gave up after 2 attempts", 2).ok());
  auto dead = Dead(*broker_);
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].attempts, 2);
  EXPECT_EQ(dead[0].reason, "gave up after 2 attempts");
}

TEST_P(SourceConformance, ARejectedMessageIsParkedWithoutBeingDelivered) {
  Message m;
  m.topic = "pay";
  m.payload = "not json";
  ASSERT_NE(broker_->dead_letters(), nullptr) << "a broker without a dead-letter console cannot park rejected input";
  auto id = broker_->dead_letters()->ParkRejected(m, "payload is not valid JSON (line 3)");
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  EXPECT_TRUE(TakeNothing(*broker_).empty());
  auto dead = Dead(*broker_);
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].id, *id);
  EXPECT_EQ(dead[0].message.payload, "not json");
  EXPECT_EQ(dead[0].reason, "payload is not valid JSON (line 3)");
  EXPECT_EQ(dead[0].attempts, 0) << "the handler never ran";
}

TEST_P(SourceConformance, ReplaySendsADeadLetterBackThroughTheQueueMarkedAsReplayed) {
  Publish({"fix-and-replay"});
  auto held = Take(*broker_, 1);
  ASSERT_EQ(held.size(), 1u);
  ASSERT_TRUE(Settle(*broker_, held[0], Settlement::Kind::kPark, 0, "account frozen").ok());
  auto dead = Dead(*broker_);
  ASSERT_EQ(dead.size(), 1u);

  auto moved = broker_->dead_letters()->Replay({dead[0].id}, "alice");
  ASSERT_TRUE(moved.ok()) << moved.status().ToString();
  EXPECT_EQ(*moved, 1);
  EXPECT_TRUE(Dead(*broker_).empty());
  auto back = Take(*broker_, 1);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].payload, "fix-and-replay");
  EXPECT_EQ(back[0].topic, "pay");
  // The actor travels with the copy, for the handler and the logs; a broker
  // that cannot tell idem's copies from a producer's carries it renamed
  // (core/reserved_headers.h). The guard trusts neither: a replay runs on the
  // store's grant (store/replay_grants.h).
  const auto mark = back[0].headers.count(kReplayHeader) ? back[0].headers.find(kReplayHeader)
                                                         : back[0].headers.find(DisownedHeaderName(kReplayHeader));
  ASSERT_NE(mark, back[0].headers.end()) << "the replayed copy names who replayed it";
  EXPECT_EQ(mark->second, "alice");
}

TEST_P(SourceConformance, PurgeDeletesOnlyTheDeadLettersNamed) {
  Publish({"keep", "drop"});
  auto held = Take(*broker_, 2);
  ASSERT_EQ(held.size(), 2u);
  for (const Message& m : held) ASSERT_TRUE(Settle(*broker_, m, Settlement::Kind::kPark, 0, "bad").ok());
  auto dead = Dead(*broker_);
  ASSERT_EQ(dead.size(), 2u);
  const DeadLetter& drop = dead[0].message.payload == "drop" ? dead[0] : dead[1];
  auto purged = broker_->dead_letters()->Purge({drop.id}, "bob");
  if (!GetParam().purges_one_dead_letter) {
    // A broker that cannot delete one dead letter (Kafka: a log) must say so
    // and what it does instead, and must not hide it anyway.
    ASSERT_FALSE(purged.ok()) << GetParam().name << " was declared unable to purge, yet purged " << *purged;
    EXPECT_TRUE(purged.status().IsNotSupported()) << purged.status().ToString();
    EXPECT_EQ(Dead(*broker_).size(), 2u) << "a purge that is not supported removed a dead letter";
    return;
  }
  ASSERT_TRUE(purged.ok()) << purged.status().ToString();
  EXPECT_EQ(*purged, 1);
  auto left = Dead(*broker_);
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].message.payload, "keep");
}

TEST_P(SourceConformance, ADelayedPublishIsNotDeliveredBeforeItsTime) {
  Publish({"scheduled"}, 300'000);
  EXPECT_TRUE(TakeNothing(*broker_).empty()) << "a message published with a 5 min delay came at once";
}

TEST_P(SourceConformance, PollReturnsAtMostTheBatchAskedFor) {
  Publish({"1", "2", "3", "4", "5"});
  size_t total = 0;
  for (int polls = 0; total < 5 && polls < 150; ++polls) {
    auto r = broker_->source().Poll(2, 200);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_LE(r->size(), 2u);
    total += r->size();
  }
  EXPECT_EQ(total, 5u);
}

}  // namespace
}  // namespace idem::testing
