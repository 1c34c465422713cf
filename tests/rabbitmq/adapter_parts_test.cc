// The RabbitMQ adapter's pure parts, without a server: URL parsing, hold-queue
// steps, dead-letter ids and the attempt cross-check with x-death.
#include <gtest/gtest.h>

#include <set>

#include "idem/rabbitmq.h"
#include "source/rabbitmq/dead_letter_id.h"
#include "source/rabbitmq/message_codec.h"
#include "source/rabbitmq/topology.h"
#include "testing/test_util.h"
#include "sim/sim_env.h"

namespace idem::rabbitmq {
namespace {

TEST(RabbitUnitUrl, DefaultsAndQueryParameters) {
  auto o = ParseAmqpUrl("amqp://u:p%40ss@example.org:5673/%2fprod?queue=pay.events&prefetch=7&known_wait_ms=100,200");
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->host, "example.org");
  EXPECT_EQ(o->port, 5673);
  EXPECT_EQ(o->vhost, "/prod");
  EXPECT_EQ(o->user, "u");
  EXPECT_EQ(o->password, "p@ss");
  EXPECT_EQ(o->queue, "pay.events");
  EXPECT_EQ(o->prefetch, 7u);
  EXPECT_EQ(o->known_wait_ms, (std::vector<int64_t>{100, 200}));

  auto d = ParseAmqpUrl("amqp://localhost");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->port, 5672);
  EXPECT_EQ(d->vhost, "/");
  EXPECT_EQ(d->queue, "idem");
  QueueNames n = QueueNames::From(*d);
  EXPECT_EQ(n.exchange, "idem");
  EXPECT_EQ(n.dead, "idem.dead");
  EXPECT_EQ(n.Wait(30'000), "idem.wait.30000");
  EXPECT_TRUE(n.IsWait("idem.wait.30000"));
  EXPECT_FALSE(n.IsWait("idem.hold.1000"));
}

TEST(RabbitUnitUrl, MistakesAreRefusedWithTheFix) {
  auto typo = ParseAmqpUrl("amqp://localhost/?prefech=3");
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.status().message().find("unknown parameter 'prefech'"), std::string::npos);
  EXPECT_FALSE(ParseAmqpUrl("amqp://localhost/?prefetch=0").ok());
  EXPECT_FALSE(ParseAmqpUrl("amqp://localhost/?prefetch=x").ok());
  EXPECT_FALSE(ParseAmqpUrl("amqp://localhost/?queue=").ok());
  EXPECT_FALSE(ParseAmqpUrl("amqp://localhost/?queue").ok());
  auto tls = ParseAmqpUrl("amqps://localhost/");
  ASSERT_FALSE(tls.ok());
  EXPECT_NE(tls.status().message().find("amqp://"), std::string::npos);
}

TEST(RabbitUnitHold, DelaysRoundUpToOneTwoFiveSteps) {
  EXPECT_EQ(HoldStepMs(1), 1'000);
  EXPECT_EQ(HoldStepMs(1'000), 1'000);
  EXPECT_EQ(HoldStepMs(1'001), 2'000);
  EXPECT_EQ(HoldStepMs(3'200), 5'000);
  EXPECT_EQ(HoldStepMs(60'000), 100'000);
}

TEST(RabbitUnitDeadId, IdsAreUniqueAndFollowTime) {
  sim::SimEnv env{/*seed=*/42};
  DeadLetterIds ids(&env);
  std::set<int64_t> seen;
  int64_t last = 0;
  for (int i = 0; i < 3'000; ++i) {  // more than one millisecond's worth of sequence numbers
    const int64_t id = ids.Next();
    EXPECT_GT(id, last);
    last = id;
    seen.insert(id);
  }
  EXPECT_EQ(seen.size(), 3'000u);
  env.Advance(10'000);
  const int64_t later = ids.Next();
  EXPECT_GT(later, last);
  EXPECT_EQ(DeadLetterIds::TimeMsOf(later), env.NowMs());
  EXPECT_EQ(DeadLetterIds::Derived(env.NowMs(), 42), DeadLetterIds::Derived(env.NowMs(), 42));
}

// x-death: [{queue: Q.wait.100, reason: expired, count: 2}, {queue: Q, reason: rejected, count: 1}]
TEST(RabbitUnitAttempt, HeaderIsCrossCheckedWithTheBrokersDeathCount) {
  QueueNames names;
  names.main = "q";
  auto entry = [](const char* key, amqp_field_value_t v) {
    amqp_table_entry_t e;
    e.key = amqp_cstring_bytes(key);
    e.value = v;
    return e;
  };
  auto text = [](const char* s) {
    amqp_field_value_t v;
    v.kind = AMQP_FIELD_KIND_UTF8;
    v.value.bytes = amqp_cstring_bytes(s);
    return v;
  };
  auto number = [](int64_t n) {
    amqp_field_value_t v;
    v.kind = AMQP_FIELD_KIND_I64;
    v.value.i64 = n;
    return v;
  };
  amqp_table_entry_t wait[] = {entry("queue", text("q.wait.100")), entry("reason", text("expired")),
                               entry("count", number(2))};
  amqp_table_entry_t rejected[] = {entry("queue", text("q")), entry("reason", text("rejected")),
                                   entry("count", number(1))};
  amqp_field_value_t deaths[2];
  deaths[0].kind = deaths[1].kind = AMQP_FIELD_KIND_TABLE;
  deaths[0].value.table = {3, wait};
  deaths[1].value.table = {3, rejected};
  amqp_field_value_t xdeath;
  xdeath.kind = AMQP_FIELD_KIND_ARRAY;
  xdeath.value.array = {2, deaths};

  amqp_table_entry_t only_death[] = {entry("x-death", xdeath)};
  EXPECT_EQ(AttemptOf({1, only_death}, names), 3) << "two passes through a wait queue: third attempt";
  amqp_table_entry_t agree[] = {entry("x-death", xdeath), entry("x-idem-attempt", number(3))};
  EXPECT_EQ(AttemptOf({2, agree}, names), 3);
  amqp_table_entry_t header_ahead[] = {entry("x-death", xdeath), entry("x-idem-attempt", text("5"))};
  EXPECT_EQ(AttemptOf({2, header_ahead}, names), 5) << "the larger wins";
  EXPECT_EQ(AttemptOf({0, nullptr}, names), 1);
}

}  // namespace
}  // namespace idem::rabbitmq
