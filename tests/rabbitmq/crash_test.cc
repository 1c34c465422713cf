// The consumer finishes the work, its transaction commits, and it dies
// (SIGKILL) before the ack reaches RabbitMQ. The broker delivers the message
// again with redelivered = true.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rabbitmq/rabbit_fixture.h"
#include "testing/die_before_settle.h"

namespace idem::testing {
namespace {

class RabbitCrash : public RabbitTest {
 protected:
  // Runs a consumer in a child process until it dies in its first Settle.
  // Returns the child's wait status.
  int ConsumeInAChildThatDiesBeforeAck(bool protection) {
    pid_t pid = fork();
    if (pid == 0) {
      // The child opens its own store handle and connections; gtest must not run here.
      auto store = OpenSqliteStore(dir_.File("store.db"), {}, Env::Default());
      auto broker = OpenBroker(Url(), BrokerOptions{}, Env::Default());
      if (!store.ok() || !broker.ok()) _exit(2);
      DieBeforeSettle dying(&(*broker)->source());
      PipelineOptions o = Options();
      o.protection = protection;
      Pipeline pipeline(&dying, store->get(), Env::Default(), o);
      if (!pipeline.Register(PayHandler()).ok()) _exit(2);
      const int64_t deadline_us = Env::Default()->MonotonicMicros() + 30'000'000;
      while (Env::Default()->MonotonicMicros() < deadline_us) (void)pipeline.RunOnce();
      _exit(3);  // never got a message
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return status;
  }

  // Consumes what the dead child left behind; returns what was delivered.
  std::vector<Message> ConsumeAfterTheCrash(bool protection, DecisionCounters* counters_out = nullptr) {
    auto broker = OpenQueue();
    if (!broker) return {};
    RecordingSource recording(&broker->source());
    PipelineOptions o = Options();
    o.protection = protection;
    auto pipeline = NewPipeline(&recording, o);
    EXPECT_TRUE(RunUntil(*pipeline, [&] { return pipeline->counters().received >= 1; }));
    EXPECT_EQ(pipeline->counters().received, 1);
    if (counters_out) {
      counters_out->first = pipeline->counters().first.load();
      counters_out->duplicate = pipeline->counters().duplicate.load();
      counters_out->parked = pipeline->counters().parked.load();
    }
    return recording.seen;
  }
};

TEST_F(RabbitCrash, KilledAfterCommitBeforeAckIsRedeliveredAndAckedAsDuplicate) {
  IDEM_REQUIRE_RABBITMQ();
  Publish({R"({"payment_id":"P1","amount":199,"user":"u1"})"});
  const int status = ConsumeInAChildThatDiesBeforeAck(/*protection=*/true);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "child status " << status;
  ASSERT_EQ(Effects("P1"), 1) << "the child's transaction committed before it died";

  DecisionCounters counters;
  std::vector<Message> seen = ConsumeAfterTheCrash(/*protection=*/true, &counters);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_TRUE(seen[0].redelivered);
  EXPECT_EQ(counters.duplicate, 1);
  EXPECT_EQ(counters.first, 0);
  EXPECT_EQ(Effects("P1"), 1);
  EXPECT_EQ(Balance(*store_, "u1"), 1'000'000 - 199);
  EXPECT_EQ(Stats().ready, 0);  // the duplicate was acked
}

// Spring AMQP's AUTO mode without consumption records: the container acks only
// after the listener returns, and the listener's work is already committed. The
// same crash then charges twice - the incident in the post-mortem.
TEST_F(RabbitCrash, NaiveAutoAckConsumerChargesTwiceAfterTheSameCrash) {
  IDEM_REQUIRE_RABBITMQ();
  Publish({R"({"payment_id":"P1","amount":199,"user":"u1"})"});
  const int status = ConsumeInAChildThatDiesBeforeAck(/*protection=*/false);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "child status " << status;
  ASSERT_EQ(Effects("P1"), 1);

  std::vector<Message> seen = ConsumeAfterTheCrash(/*protection=*/false);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_TRUE(seen[0].redelivered);
  EXPECT_EQ(Effects("P1"), 2);
  EXPECT_EQ(Balance(*store_, "u1"), 1'000'000 - 2 * 199);
}

// Killed after committing a permanent failure, before the move to the terminal
// queue: the redelivered copy must still end up there.
TEST_F(RabbitCrash, KilledBeforeTheTerminalMoveStillParksTheMessage) {
  IDEM_REQUIRE_RABBITMQ();
  Publish({R"({"payment_id":"P1","amount":5,"fail":"permanent"})"});
  const int status = ConsumeInAChildThatDiesBeforeAck(/*protection=*/true);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "child status " << status;
  EXPECT_TRUE(Dead().empty()) << "the child died before moving it";

  DecisionCounters counters;
  std::vector<Message> seen = ConsumeAfterTheCrash(/*protection=*/true, &counters);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_TRUE(seen[0].redelivered);
  EXPECT_EQ(counters.parked, 1);
  std::vector<DeadLetter> dead = Dead();
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_NE(dead[0].reason.find("bad payment"), std::string::npos) << dead[0].reason;
  EXPECT_EQ(dead[0].message.payload, seen[0].payload);
  EXPECT_EQ(Effects("P1"), 0);
  EXPECT_EQ(Stats().ready, 0);
}

}  // namespace
}  // namespace idem::testing
