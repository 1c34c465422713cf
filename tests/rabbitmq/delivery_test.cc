// Consuming from RabbitMQ: duplicates from an external producer, the prefetch
// bound, and what a message looks like after the round trip.
#include <set>

#include "rabbitmq/rabbit_fixture.h"

namespace idem::testing {
namespace {

class RabbitDelivery : public RabbitTest {};

// The producer resent after a timeout, so the broker holds two copies
// (amqp-publish sets no message id: the copies are indistinguishable).
TEST_F(RabbitDelivery, DuplicatesFromAnExternalProducerAreAppliedOnce) {
  IDEM_REQUIRE_RABBITMQ();
  auto broker = OpenQueue();  // declares the topology before the external publishes
  ASSERT_NE(broker, nullptr);
  AmqpToolsPublish(R"({"payment_id":"P1","amount":199,"user":"u1"})");
  AmqpToolsPublish(R"({"payment_id":"P1","amount":199,"user":"u1"})");
  AmqpToolsPublish(R"({"payment_id":"P2","amount":1,"user":"u1"})");

  auto pipeline = NewPipeline(&broker->source());
  ASSERT_TRUE(RunUntil(*pipeline, [&] { return pipeline->counters().received >= 3; }));
  EXPECT_EQ(pipeline->counters().first, 2);
  EXPECT_EQ(pipeline->counters().duplicate, 1);
  EXPECT_EQ(Effects("P1"), 1);
  EXPECT_EQ(Effects("P2"), 1);
  EXPECT_EQ(Balance(*store_, "u1"), 1'000'000 - 199 - 1);

  pipeline.reset();
  broker.reset();  // anything left unacked would go back to the queue now
  QueueStats st = Stats();
  EXPECT_EQ(st.ready, 0);
  EXPECT_EQ(st.dead, 0);
}

// The same duplicates reach a consumer without consumption records: both copies
// charge the account (the incident's double charge).
TEST_F(RabbitDelivery, WithoutTheGuardTheSameDuplicatesChargeTwice) {
  IDEM_REQUIRE_RABBITMQ();
  auto broker = OpenQueue();
  ASSERT_NE(broker, nullptr);
  AmqpToolsPublish(R"({"payment_id":"P1","amount":199,"user":"u1"})");
  AmqpToolsPublish(R"({"payment_id":"P1","amount":199,"user":"u1"})");

  PipelineOptions naive = Options();
  naive.protection = false;
  auto pipeline = NewPipeline(&broker->source(), naive);
  ASSERT_TRUE(RunUntil(*pipeline, [&] { return pipeline->counters().received >= 2; }));
  EXPECT_EQ(Effects("P1"), 2);
  EXPECT_EQ(Balance(*store_, "u1"), 1'000'000 - 2 * 199);
}

TEST_F(RabbitDelivery, PrefetchBoundsWhatOnePollHandsOut) {
  IDEM_REQUIRE_RABBITMQ();
  std::vector<std::string> bodies;
  for (int i = 0; i < 10; ++i) bodies.push_back(R"({"payment_id":"P)" + std::to_string(i) + R"(","amount":1})");
  Publish(bodies);
  auto broker = OpenQueue("prefetch=3");
  ASSERT_NE(broker, nullptr);
  // Without acks, RabbitMQ stops at three unacknowledged deliveries.
  std::vector<Message> held;
  const int64_t deadline_us = Env::Default()->MonotonicMicros() + 30'000'000;
  while (held.size() < 3 && Env::Default()->MonotonicMicros() < deadline_us) {
    auto got = broker->source().Poll(100, 200);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    held.insert(held.end(), got->begin(), got->end());
  }
  ASSERT_EQ(held.size(), 3u);
  auto more = broker->source().Poll(100, 300);
  ASSERT_TRUE(more.ok());
  EXPECT_EQ(more->size(), 0u) << "more unacked deliveries than the prefetch allows";
  std::set<std::string> payloads;
  std::vector<Settlement> acks;
  for (const Message& m : held) {
    payloads.insert(m.payload);
    acks.push_back(Settlement{&m, Settlement::Kind::kAck, 0, ""});
  }
  ASSERT_TRUE(broker->source().Settle(acks).ok());
  // Acked in batches, the rest flows; no poll ever exceeds the bound.
  while (payloads.size() < 10 && Env::Default()->MonotonicMicros() < deadline_us) {
    auto got = broker->source().Poll(100, 200);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_LE(got->size(), 3u);
    std::vector<Settlement> batch;
    for (const Message& m : *got) {
      payloads.insert(m.payload);
      batch.push_back(Settlement{&m, Settlement::Kind::kAck, 0, ""});
    }
    Status s = broker->source().Settle(batch);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  EXPECT_EQ(payloads.size(), 10u);
  broker.reset();
  EXPECT_EQ(Stats().ready, 0);
}

TEST_F(RabbitDelivery, MessageFieldsSurviveTheRoundTrip) {
  IDEM_REQUIRE_RABBITMQ();
  auto broker = OpenQueue();
  ASSERT_NE(broker, nullptr);
  Message m;
  m.id = "msg-1";
  m.key = "P9:pay";
  m.topic = "pay";
  m.headers["trace"] = "t-1";
  m.payload = R"({"payment_id":"P9","amount":3})";
  m.published_at_ms = 1'700'000'000'123;
  std::vector<Message> batch{m};
  ASSERT_TRUE(broker->publisher().PublishBatch(batch).ok());

  auto got = broker->source().Poll(10, 5'000);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->size(), 1u);
  const Message& r = (*got)[0];
  EXPECT_EQ(r.id, "msg-1");
  EXPECT_EQ(r.key, "P9:pay");
  EXPECT_EQ(r.topic, "pay");
  EXPECT_EQ(r.payload, m.payload);
  EXPECT_EQ(r.headers.at("trace"), "t-1");
  EXPECT_EQ(r.published_at_ms, m.published_at_ms);
  EXPECT_EQ(r.delivery_count, 1);
  EXPECT_FALSE(r.redelivered);
  EXPECT_GT(r.receipt.sequence, 0) << "the receipt holds the delivery tag";
  ASSERT_TRUE(broker->source().Settle({Settlement{&r, Settlement::Kind::kAck, 0, ""}}).ok());
  // A receipt is settled once.
  EXPECT_FALSE(broker->source().Settle({Settlement{&r, Settlement::Kind::kAck, 0, ""}}).ok());
}

// A short release is a requeue: the same copy comes back, marked redelivered.
TEST_F(RabbitDelivery, ReleaseGivesTheMessageBack) {
  IDEM_REQUIRE_RABBITMQ();
  Publish({R"({"payment_id":"P1","amount":1})"});
  auto broker = OpenQueue();
  ASSERT_NE(broker, nullptr);
  auto first = broker->source().Poll(10, 5'000);
  ASSERT_TRUE(first.ok() && first->size() == 1u);
  ASSERT_TRUE(broker->source().Settle({Settlement{&(*first)[0], Settlement::Kind::kRelease, 0, "db down"}}).ok());
  auto again = broker->source().Poll(10, 5'000);
  ASSERT_TRUE(again.ok() && again->size() == 1u);
  EXPECT_TRUE((*again)[0].redelivered);
  EXPECT_EQ((*again)[0].id, (*first)[0].id);
  EXPECT_EQ((*again)[0].payload, (*first)[0].payload);
  ASSERT_TRUE(broker->source().Settle({Settlement{&(*again)[0], Settlement::Kind::kAck, 0, ""}}).ok());
}

// Acks go out as one multiple-ack only for a gap-free run of the oldest
// outstanding deliveries: a message in a gap must not be acked with its neighbours.
TEST_F(RabbitDelivery, AMultipleAckNeverCoversAMessageThatIsNotSettledAsAcked) {
  IDEM_REQUIRE_RABBITMQ();
  Publish({R"({"payment_id":"P0","amount":1})", R"({"payment_id":"P1","amount":1})",
           R"({"payment_id":"P2","amount":1})", R"({"payment_id":"P3","amount":1})"});
  auto broker = OpenQueue();
  ASSERT_NE(broker, nullptr);
  std::vector<Message> held;
  const int64_t deadline_us = Env::Default()->MonotonicMicros() + 30'000'000;
  while (held.size() < 4 && Env::Default()->MonotonicMicros() < deadline_us) {
    auto got = broker->source().Poll(10, 200);
    ASSERT_TRUE(got.ok());
    held.insert(held.end(), got->begin(), got->end());
  }
  ASSERT_EQ(held.size(), 4u);
  // P0, P1 and P3 acked (P0..P1 as one multiple-ack), P2 given back.
  ASSERT_TRUE(broker->source()
                  .Settle({Settlement{&held[0], Settlement::Kind::kAck, 0, ""},
                            Settlement{&held[1], Settlement::Kind::kAck, 0, ""},
                            Settlement{&held[2], Settlement::Kind::kRelease, 0, "undecided"},
                            Settlement{&held[3], Settlement::Kind::kAck, 0, ""}})
                  .ok());
  auto again = broker->source().Poll(10, 5'000);
  ASSERT_TRUE(again.ok() && again->size() == 1u);
  EXPECT_EQ((*again)[0].payload, held[2].payload);
  EXPECT_TRUE((*again)[0].redelivered);
  ASSERT_TRUE(broker->source().Settle({Settlement{&(*again)[0], Settlement::Kind::kAck, 0, ""}}).ok());
  broker.reset();
  EXPECT_EQ(Stats().ready, 0);
}

// Abandon: the consumer gives up what it holds without settling, as a
// crashed one would; RabbitMQ hands it out again, and a late ack does nothing.
TEST_F(RabbitDelivery, AbandonedDeliveriesAreDeliveredAgainAndLateAcksDoNothing) {
  IDEM_REQUIRE_RABBITMQ();
  Publish({R"({"payment_id":"P0","amount":1})", R"({"payment_id":"P1","amount":1})",
           R"({"payment_id":"P2","amount":1})"});
  auto broker = OpenQueue();
  ASSERT_NE(broker, nullptr);
  auto take = [&](size_t n) {
    std::vector<Message> held;
    const int64_t deadline_us = Env::Default()->MonotonicMicros() + 30'000'000;
    while (held.size() < n && Env::Default()->MonotonicMicros() < deadline_us) {
      auto got = broker->source().Poll(10, 200);
      EXPECT_TRUE(got.ok()) << got.status().ToString();
      if (!got.ok()) break;
      held.insert(held.end(), got->begin(), got->end());
    }
    return held;
  };
  std::vector<Message> held = take(3);
  ASSERT_EQ(held.size(), 3u);
  ASSERT_TRUE(broker->source().Settle({Settlement{&held[0], Settlement::Kind::kAck, 0, ""}}).ok());
  ASSERT_TRUE(broker->source().Abandon().ok());

  std::vector<Message> again = take(2);
  ASSERT_EQ(again.size(), 2u);
  std::set<std::string> payloads;
  for (const Message& m : again) {
    EXPECT_TRUE(m.redelivered);
    payloads.insert(m.payload);
  }
  EXPECT_EQ(payloads, (std::set<std::string>{held[1].payload, held[2].payload}));
  // The abandoned receipts are settled late: nothing happens, and nothing fails.
  Status late = broker->source().Settle({Settlement{&held[1], Settlement::Kind::kAck, 0, ""},
                                Settlement{&held[2], Settlement::Kind::kPark, 0, "late"}});
  EXPECT_TRUE(late.ok()) << late.ToString();
  ASSERT_TRUE(broker->source().Settle({Settlement{&again[0], Settlement::Kind::kAck, 0, ""},
                              Settlement{&again[1], Settlement::Kind::kAck, 0, ""}})
                  .ok());
  broker.reset();
  QueueStats st = Stats();
  EXPECT_EQ(st.ready, 0);
  EXPECT_EQ(st.dead, 0) << "the late park of an abandoned copy must not move it";
}

TEST_F(RabbitDelivery, ConsumingOnlySomeTopicsIsRefusedWithAnExplanation) {
  IDEM_REQUIRE_RABBITMQ();
  BrokerOptions o;
  o.topics = {"pay"};
  auto b = OpenBroker(Url(), o, Env::Default());
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("one queue per set of topics"), std::string::npos);
}

}  // namespace
}  // namespace idem::testing
