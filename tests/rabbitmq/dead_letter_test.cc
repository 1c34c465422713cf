// The terminal-queue console on RabbitMQ: list/show keep every dead letter in
// its place, replay goes back through the main queue and every guard, purge
// deletes, and both leave an audit record.
#include <nlohmann/json.hpp>

#include "rabbitmq/rabbit_fixture.h"
#include "store/replay_grants.h"

namespace idem::testing {
namespace {

class RabbitDeadLetters : public RabbitTest {
 protected:
  // Parks `n` messages straight into the terminal queue; returns their ids.
  std::vector<int64_t> Park(Broker& broker, int n) {
    std::vector<int64_t> ids;
    for (int i = 0; i < n; ++i) {
      Message m;
      m.topic = "pay";
      m.payload = R"({"payment_id":"D)" + std::to_string(i) + R"(","amount":1})";
      auto id = broker.dead_letters()->ParkRejected(m, "reason " + std::to_string(i));
      EXPECT_TRUE(id.ok()) << id.status().ToString();
      ids.push_back(id.ok() ? *id : 0);
    }
    return ids;
  }
  // What `idem dlq replay` writes with its audit row: a grant per dead letter.
  void Grant(const std::vector<DeadLetter>& dead) {
    std::vector<Message> messages;
    for (const DeadLetter& d : dead) messages.push_back(d.message);
    auto tx = store_->Begin();
    ASSERT_TRUE(tx.ok());
    ASSERT_TRUE(replay_grants::Write(**tx, 0, "test", messages, Env::Default()->NowMs()).ok());
    ASSERT_TRUE((*tx)->Commit().ok());
  }
  std::vector<nlohmann::json> AuditRecords() {
    std::vector<nlohmann::json> out;
    while (auto got = RawTakeOne(base_url_, queue_ + ".audit", /*reject=*/false))
      out.push_back(nlohmann::json::parse(got->body));
    return out;
  }
};

TEST_F(RabbitDeadLetters, ListAndShowLoseNothingAndKeepTheOrder) {
  IDEM_REQUIRE_RABBITMQ();
  auto broker = OpenQueue();
  ASSERT_NE(broker, nullptr);
  std::vector<int64_t> ids = Park(*broker, 5);
  for (size_t i = 1; i < ids.size(); ++i) EXPECT_LT(ids[i - 1], ids[i]) << "ids follow parking order";

  auto page1 = broker->dead_letters()->List(2, 0);
  ASSERT_TRUE(page1.ok()) << page1.status().ToString();
  ASSERT_EQ(page1->size(), 2u);
  EXPECT_EQ((*page1)[0].id, ids[0]);
  EXPECT_EQ((*page1)[1].id, ids[1]);
  EXPECT_EQ((*page1)[0].reason, "reason 0");
  auto page2 = broker->dead_letters()->List(10, (*page1)[1].id);
  ASSERT_TRUE(page2.ok());
  ASSERT_EQ(page2->size(), 3u);
  EXPECT_EQ((*page2)[0].id, ids[2]);

  auto shown = broker->dead_letters()->Get(ids[3]);
  ASSERT_TRUE(shown.ok() && shown->has_value());
  EXPECT_EQ((*shown)->reason, "reason 3");
  EXPECT_EQ((*shown)->message.payload, R"({"payment_id":"D3","amount":1})");
  auto missing = broker->dead_letters()->Get(12345);
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());

  // Reading did not consume: all five are still there, in the same order.
  auto all = broker->dead_letters()->List(100, 0);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 5u);
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ((*all)[i].id, ids[i]);
  EXPECT_EQ(Stats().dead, 5);
}

TEST_F(RabbitDeadLetters, ReplayGoesThroughTheMainQueueAndEveryGuard) {
  IDEM_REQUIRE_RABBITMQ();
  Publish({R"({"payment_id":"P1","amount":7,"user":"u2"})"});
  auto broker = OpenQueue();
  ASSERT_NE(broker, nullptr);
  // The account service is broken for now: every P1 fails permanently.
  std::atomic<bool> broken{true};
  HandlerSpec spec = PayHandler();
  spec.fn = [inner = spec.fn, &broken](HandlerContext& ctx) {
    return broken ? HandlerResult::Permanent("account service misconfigured") : inner(ctx);
  };
  RecordingSource recording(&broker->source());
  Pipeline pipeline(&recording, store_.get(), Env::Default(), Options());
  ASSERT_TRUE(pipeline.Register(spec).ok());
  ASSERT_TRUE(RunUntil(pipeline, [&] { return pipeline.counters().parked == 1; }));
  ASSERT_EQ(Dead().size(), 1u);

  broken = false;  // fixed; an operator replays
  Grant(Dead());
  auto replayed = broker->dead_letters()->Replay({}, "alice");
  ASSERT_TRUE(replayed.ok()) << replayed.status().ToString();
  EXPECT_EQ(*replayed, 1);
  ASSERT_TRUE(RunUntil(pipeline, [&] { return Effects("P1") == 1; }));
  const Message& replay = recording.seen.back();
  EXPECT_EQ(replay.headers.at(kReplayHeader), "alice");
  EXPECT_EQ(replay.headers.count("x-idem-attempt"), 0u) << "a replay starts without the old attempt stamp";
  EXPECT_EQ(replay.topic, "pay");
  EXPECT_TRUE(Dead().empty());

  // Replaying a copy of a message whose effect already happened changes nothing.
  Message again = replay;
  auto id = broker->dead_letters()->ParkRejected(again, "parked by hand to test replay");
  ASSERT_TRUE(id.ok());
  ASSERT_EQ(*broker->dead_letters()->Replay({*id}, "bob"), 1);
  const int64_t dup_before = pipeline.counters().duplicate;
  ASSERT_TRUE(RunUntil(pipeline, [&] { return pipeline.counters().duplicate == dup_before + 1; }));
  EXPECT_EQ(Effects("P1"), 1);
  EXPECT_EQ(Balance(*store_, "u2"), 1'000'000 - 7);

  std::vector<nlohmann::json> audit = AuditRecords();
  ASSERT_EQ(audit.size(), 2u);
  EXPECT_EQ(audit[0]["action"], "replay");
  EXPECT_EQ(audit[0]["actor"], "alice");
  EXPECT_EQ(audit[0]["reason"], "account service misconfigured");
  EXPECT_EQ(audit[1]["actor"], "bob");
  EXPECT_EQ(audit[1]["dead_id"], *id);
}

TEST_F(RabbitDeadLetters, PurgeDeletesOnlyWhatItIsGivenAndIsAudited) {
  IDEM_REQUIRE_RABBITMQ();
  auto broker = OpenQueue();
  ASSERT_NE(broker, nullptr);
  std::vector<int64_t> ids = Park(*broker, 3);
  auto purged = broker->dead_letters()->Purge({ids[1], 999}, "carol");
  ASSERT_TRUE(purged.ok()) << purged.status().ToString();
  EXPECT_EQ(*purged, 1);
  auto left = broker->dead_letters()->List(10, 0);
  ASSERT_TRUE(left.ok());
  ASSERT_EQ(left->size(), 2u);
  EXPECT_EQ((*left)[0].id, ids[0]);
  EXPECT_EQ((*left)[1].id, ids[2]);
  EXPECT_EQ(*broker->dead_letters()->Purge({}, "carol"), 2);
  EXPECT_EQ(Stats().dead, 0);
  std::vector<nlohmann::json> audit = AuditRecords();
  ASSERT_EQ(audit.size(), 3u);
  EXPECT_EQ(audit[0]["action"], "purge");
  EXPECT_EQ(audit[0]["dead_id"], ids[1]);
}

// Another client rejects a message with requeue=false: the main queue's
// dead-letter exchange puts it in the terminal queue, where the console shows
// it with the broker's reason, and it can be replayed like any other.
TEST_F(RabbitDeadLetters, MessagesRejectedByOthersLandInTheTerminalQueue) {
  IDEM_REQUIRE_RABBITMQ();
  auto broker = OpenQueue();
  ASSERT_NE(broker, nullptr);
  AmqpToolsPublish(R"({"payment_id":"P1","amount":3})");
  auto taken = RawTakeOne(base_url_, queue_, /*reject=*/true);
  ASSERT_TRUE(taken.has_value());

  std::vector<DeadLetter> dead;
  const int64_t deadline_us = Env::Default()->MonotonicMicros() + 10'000'000;
  while (dead.empty() && Env::Default()->MonotonicMicros() < deadline_us) dead = Dead();
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_NE(dead[0].reason.find("rejected"), std::string::npos) << dead[0].reason;
  EXPECT_EQ(dead[0].message.topic, "pay");
  EXPECT_GT(dead[0].id, 0);
  auto shown = broker->dead_letters()->Get(dead[0].id);
  ASSERT_TRUE(shown.ok() && shown->has_value()) << "the derived id is stable";

  ASSERT_EQ(*broker->dead_letters()->Replay({dead[0].id}, "dave"), 1);
  auto pipeline = NewPipeline(&broker->source());
  ASSERT_TRUE(RunUntil(*pipeline, [&] { return Effects("P1") == 1; }));
}

// An operator deleted the terminal queue under a running broker object. The
// mandatory publish comes back unroutable instead of vanishing, idem declares
// its queues again and the dead letter arrives.
TEST_F(RabbitDeadLetters, ADeletedTerminalQueueIsDeclaredAgainBeforeParking) {
  IDEM_REQUIRE_RABBITMQ();
  auto broker = OpenQueue();
  ASSERT_NE(broker, nullptr);
  CommandResult r = RunCommand({"amqp-delete-queue", "-u", base_url_, "-q", queue_ + ".dead"});
  ASSERT_EQ(r.status, 0) << r.out;
  std::vector<int64_t> ids = Park(*broker, 1);
  std::vector<DeadLetter> dead = Dead();
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].id, ids[0]);
}

}  // namespace
}  // namespace idem::testing
