#include "outbox/chain.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <optional>

#include "idem/pipeline.h"
#include "ops/outbox/relay.h"
#include "sim/sim_env.h"
#include "testing/test_util.h"

namespace idem::testing {
namespace {

constexpr const char* kPoints = "points.grant";
constexpr const char* kNotice = "notice.send";

// Forwards, then kills its own process once the broker confirmed: the relay
// dies after publishing and before marking the rows sent.
class KillAfterConfirm final : public Publisher {
 public:
  explicit KillAfterConfirm(Publisher& inner) : inner_(inner) {}
  Status PublishBatch(std::vector<Message>& messages, int64_t delay_ms) override {
    Status s = inner_.PublishBatch(messages, delay_ms);
    if (s.ok()) ::kill(::getpid(), SIGKILL);
    return s;
  }

 private:
  Publisher& inner_;
};

// Passes polls through; dies the moment the pipeline settles, which is after
// its transaction committed: the consumer dies between commit and ack.
class KillBeforeAck final : public Source {
 public:
  explicit KillBeforeAck(Source& inner) : inner_(inner) {}
  Result<std::vector<Message>> Poll(size_t n, int64_t wait_ms) override { return inner_.Poll(n, wait_ms); }
  Status Settle(const std::vector<Settlement>& s) override {
    if (!s.empty()) ::kill(::getpid(), SIGKILL);
    return Status::OK();
  }
  Status Abandon() override { return inner_.Abandon(); }

 private:
  Source& inner_;
};

// pay: charges (the effects table) and emits a points grant and a notice keyed by the payment.
HandlerSpec PayEmitting(HandlerSpec spec) {
  spec.fn = [charge = spec.fn](HandlerContext& ctx) {
    HandlerResult r = charge(ctx);
    if (r.outcome != HandlerResult::Outcome::kOk) return r;
    const std::string id = ctx.payload.Text("payment_id").value_or("");
    const std::string body = R"({"payment_id":")" + id + "\"}";
    for (const char* topic : {kPoints, kNotice})
      if (Status s = ctx.Emit({topic, std::string(topic) + ":" + id, body, {}}); !s.ok())
        return HandlerResult::FromStatus(s, std::string("emit ") + topic);
    return r;
  };
  return spec;
}

// A downstream consumer behind idem, keyed by the producer's business key:
// one row in `table` per message it applies.
HandlerSpec Downstream(const char* topic, const std::string& table) {
  HandlerSpec spec;
  spec.topic = topic;
  spec.fn = [table](HandlerContext& ctx) {
    Status s = ctx.tx.Exec("INSERT INTO " + table + " (payment_id) VALUES (?)",
                           {ctx.payload.Text("payment_id").value_or("")})
                   .status();
    return s.ok() ? HandlerResult::Ok() : HandlerResult::FromStatus(s, "insert into " + table);
  };
  return spec;
}

Status RegisterDownstream(Pipeline& p) {
  IDEM_RETURN_IF_ERROR(p.Register(Downstream(kPoints, "chain_points")));
  return p.Register(Downstream(kNotice, "chain_notices"));
}

// Runs batches until `done` holds and a poll comes back empty (a broker over
// the network may hand out redelivered copies a poll later), bounded so a bug
// cannot hang the test.
void Drain(Pipeline& p, const std::function<bool(int64_t polled)>& done) {
  int64_t polled = 0;
  for (int i = 0; i < 1000; ++i) {
    BatchReport r = p.RunOnce();
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    polled += static_cast<int64_t>(r.polled);
    if (r.polled == 0 && done(polled)) return;
  }
  FAIL() << "the queue never drained";
}

// Runs `child` in a forked process, which must kill itself with SIGKILL.
void RunChildThatDies(const char* what, const std::function<int()>& child) {
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) ::_exit(child());  // reached only if the crash point was never hit
  int wstatus = 0;
  ASSERT_EQ(::waitpid(pid, &wstatus, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGKILL)
      << "the " << what << " was not killed at its crash point (exit status " << wstatus << ")";
}

}  // namespace

void RunOutboxChain(const ChainEnds& ends, int payments) {
  std::optional<sim::SimEnv> clock;
  if (ends.real_time) clock.emplace(/*seed=*/7, Env::Default()->NowMs() + 3'600'000);
  else clock.emplace(/*seed=*/7);
  sim::SimEnv& relay_clock = *clock;
  Env& env = ends.real_time ? *Env::Default() : relay_clock;
  auto store = ends.open_store(&env);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  CreateEffectTables(**store);
  ASSERT_TRUE((*store)
                  ->ExecScript("CREATE TABLE chain_points (payment_id VARCHAR(64) NOT NULL);"
                               "CREATE TABLE chain_notices (payment_id VARCHAR(64) NOT NULL)")
                  .ok());
  PipelineOptions options;
  options.max_linger_ms = ends.poll_wait_ms;
  {
    auto pay = ends.open_pay_broker(&env);
    ASSERT_TRUE(pay.ok()) << pay.status().ToString();
    std::vector<Message> batch;
    for (int i = 0; i < payments; ++i) {
      Message m;
      m.topic = "pay";
      m.payload = R"({"payment_id":"P)" + std::to_string(i) + R"(","amount":1})";
      batch.push_back(m);
    }
    ASSERT_TRUE((*pay)->publisher().PublishBatch(batch).ok());
    Pipeline consumer(&(*pay)->source(), store->get(), &env, options);
    ASSERT_TRUE(consumer.Register(PayEmitting(PayHandler())).ok());
    Drain(consumer, [&](int64_t) { return QueryInt(**store, "SELECT COUNT(*) FROM idem_outbox") == 2 * payments; });
  }
  ASSERT_EQ(QueryInt(**store, "SELECT COUNT(*) FROM idem_outbox WHERE state = 'PENDING'"), 2 * payments);

  outbox::RelayOptions relay_options;
  relay_options.claim_ms = 30'000;
  // The downstream broker exists before anything is published to it.
  auto downstream = ends.open_downstream_broker(&env);
  ASSERT_TRUE(downstream.ok()) << downstream.status().ToString();
  RunChildThatDies("relay", [&] {
    auto s = ends.open_store(&env);
    auto b = ends.open_downstream_broker(&env);
    if (!s.ok() || !b.ok()) return 3;
    KillAfterConfirm publisher((*b)->publisher());
    outbox::Relay relay(**s, publisher, relay_options);
    (void)relay.RelayOnce(relay_clock.NowMs());
    return 4;
  });
  EXPECT_EQ(QueryInt(**store, "SELECT COUNT(*) FROM idem_outbox WHERE state = 'SENT'"), 0) << "never marked";

  // A new relay publishes the claimed rows again once the claim expired: every
  // message is on the broker twice, under the same business key.
  relay_clock.SleepMs(relay_options.claim_ms);
  outbox::Relay relay(**store, (*downstream)->publisher(), relay_options);
  auto step = relay.RelayOnce(relay_clock.NowMs());
  ASSERT_TRUE(step.ok()) << step.status().ToString();
  EXPECT_EQ(step->published, 2 * payments);
  EXPECT_EQ(QueryInt(**store, "SELECT COUNT(*) FROM idem_outbox WHERE state = 'SENT'"), 2 * payments);

  // The downstream consumer commits its first batch and dies before the ack.
  RunChildThatDies("consumer", [&] {
    auto s = ends.open_store(&env);
    auto b = ends.open_downstream_broker(&env);
    if (!s.ok() || !b.ok()) return 3;
    KillBeforeAck dying((*b)->source());
    PipelineOptions o = options;
    o.batch_size = static_cast<size_t>(4 * payments);
    Pipeline consumer(&dying, s->get(), &env, o);
    if (!RegisterDownstream(consumer).ok()) return 5;
    // Polls until a batch arrives (a Kafka consumer first has to join its group).
    for (int i = 0; i < 1000; ++i) (void)consumer.RunOnce();
    return 4;
  });
  EXPECT_GT(QueryInt(**store, "SELECT COUNT(*) FROM chain_points") +
                QueryInt(**store, "SELECT COUNT(*) FROM chain_notices"),
            0)
      << "the killed consumer committed before it died";

  // Its deliveries come back; a new consumer absorbs every copy.
  relay_clock.SleepMs(ends.redelivery_after_ms);  // the consumers' clock too, except on Kafka
  {
    auto b = ends.open_downstream_broker(&env);
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    Pipeline consumer(&(*b)->source(), store->get(), &env, options);
    ASSERT_TRUE(RegisterDownstream(consumer).ok());
    // Done when every record is there, this consumer has had each of the 4 ×
    // payments messages (both relays' copies: the killed consumer acked none,
    // and RabbitMQ requeues its deliveries only once it notices the closed
    // connection, so an empty queue alone proves nothing), and the broker has
    // every copy settled (Kafka commits offsets asynchronously: the consumer
    // polls on meanwhile).
    Drain(consumer, [&](int64_t polled) {
      auto st = (*downstream)->Stats();
      return polled >= 4 * payments &&
             QueryInt(**store, "SELECT COUNT(*) FROM idem_records WHERE status = 'SUCCEEDED'") == 3 * payments &&
             st.ok() && std::max<int64_t>(st->ready, 0) + std::max<int64_t>(st->in_flight, 0) == 0;
    });
  }
  for (const char* table : {"chain_points", "chain_notices"}) {
    EXPECT_EQ(QueryInt(**store, std::string("SELECT COUNT(*) FROM ") + table), payments) << table;
    EXPECT_EQ(QueryInt(**store, std::string("SELECT COUNT(DISTINCT payment_id) FROM ") + table), payments) << table;
  }
  EXPECT_EQ(QueryInt(**store, "SELECT COUNT(*) FROM idem_records WHERE status = 'SUCCEEDED'"), 3 * payments)
      << "one record per payment, per grant and per notice";
  auto left = (*downstream)->Stats();
  ASSERT_TRUE(left.ok()) << left.status().ToString();
  EXPECT_LE(std::max<int64_t>(left->ready, 0) + std::max<int64_t>(left->in_flight, 0), 0) << "every copy settled";
  EXPECT_EQ(left->dead, 0) << "none parked";
}

}  // namespace idem::testing
