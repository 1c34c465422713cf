// The ordered retry mode (the Kafka default) through the pipeline: a retryable
// failure is retried in place and holds only its own key; the key's later
// events wait behind it, across a change of owner too; its offset is never
// committed past; once its attempts run out it is dead-lettered and the key
// goes on. The orders' events are keyed by order, as a payments producer keys them.
#include <atomic>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "idem/kafka.h"
#include "kafka/kafka_fixture.h"
#include "source/kafka/topic_reader.h"
#include "testing/consumer_group.h"

namespace idem::testing {
namespace {

// Ordered retries, the adapter's default, said out loud.
constexpr const char* kOrdered = "&retry_mode=ordered";

class KafkaOrderedRetry : public KafkaPipelineTest {
 protected:
  void SetUp() override {
    partitions_ = 1;  // every key in one partition: what flows past a held key is another key's
    KafkaPipelineTest::SetUp();
  }

  // Publishes, in this order, one record per "ORDER:EVENT", keyed by the order.
  void PublishEvents(const std::vector<std::string>& events) {
    auto broker = OpenKafka(kOrdered);
    ASSERT_NE(broker, nullptr);
    std::vector<Message> batch;
    for (const std::string& e : events) {
      const std::string order = e.substr(0, e.find(':'));
      const std::string event = e.substr(e.find(':') + 1);
      Message m;
      m.topic = "pay";
      m.key = order;
      m.payload = nlohmann::json{{"payment_id", order + "-" + event}, {"order", order}, {"event", event},
                                 {"amount", 100}, {"user", "u1"}}.dump();
      batch.push_back(std::move(m));
    }
    Status s = broker->publisher().PublishBatch(batch, 0);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  // The events ("O1-pay") in the order their effects were written.
  std::vector<std::string> Applied() {
    std::vector<std::string> out;
    auto tx = store_->Begin();
    EXPECT_TRUE(tx.ok());
    if (!tx.ok()) return out;
    auto rows = (*tx)->Query("SELECT key FROM effects ORDER BY rowid", {});
    (*tx)->Rollback();
    if (rows.ok())
      for (const auto& row : *rows) out.push_back(AsText(row[0]).substr(4));  // the key without "pay:"
    return out;
  }
  // The events of `order` among them, in that order.
  std::vector<std::string> AppliedOf(const std::string& order) {
    std::vector<std::string> out;
    for (const std::string& e : Applied())
      if (e.rfind(order + "-", 0) == 0) out.push_back(e);
    return out;
  }

  // The group's committed offset of the one partition (-1: none).
  int64_t Committed() {
    auto options = ParseKafkaUrl(Url(kOrdered));
    EXPECT_TRUE(options.ok());
    auto reader = kafka::TopicReader::Open(*options, MockKafka::Get().bootstrap());
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    if (!reader.ok()) return -2;
    auto ranges = reader->Ranges(topic_);
    EXPECT_TRUE(ranges.ok() && ranges->size() == 1u);
    return ranges.ok() && ranges->size() == 1u ? (*ranges)[0].committed : -2;
  }

  std::unique_ptr<KafkaWorker> Start(HandlerSpec handler, PipelineOptions options = Options(),
                                     const std::string& url_extra = "") {
    auto broker = OpenKafka(kOrdered + url_extra);
    auto store = OpenSqliteStore(dir_.File("store.db"), {}, Env::Default());
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    if (!broker || !store.ok()) return nullptr;
    return std::make_unique<KafkaWorker>(std::move(broker), std::move(*store), options, std::move(handler));
  }

  bool WaitApplied(size_t n) {
    return WaitFor([&] { return Applied().size() >= n; }, 60'000);
  }
};

// Pay debits the order's amount and a refund gives it back; a refund whose
// payment has no effect yet is refused for good (dead-lettered), which is what
// a refund that overtakes its order's payment costs. `gate` runs first and may
// fail the event.
HandlerSpec OrderHandler(std::function<std::optional<HandlerResult>(HandlerContext&, const std::string&)> gate) {
  HandlerSpec pay = PayHandler();
  HandlerSpec spec = pay;
  spec.fn = [pay, gate](HandlerContext& ctx) -> HandlerResult {
    auto doc = nlohmann::json::parse(ctx.message.payload);
    const std::string event = doc.at("event").get<std::string>();
    if (auto failed = gate(ctx, event)) return *failed;
    if (event == "pay") return pay.fn(ctx);
    const std::string payment = "pay:" + doc.at("order").get<std::string>() + "-pay";
    auto paid = ctx.tx.Query("SELECT COUNT(*) FROM effects WHERE key = ?", {payment});
    if (!paid.ok()) return HandlerResult::Retryable(paid.status().ToString());
    if (AsInt((*paid)[0][0]) == 0) return HandlerResult::Permanent(event + " before the order's payment");
    const int64_t back = event == "refund" ? doc.at("amount").get<int64_t>() : 0;
    auto ins = ctx.tx.Exec("INSERT INTO effects (key, msg_id, amount) VALUES (?, ?, ?)",
                           {ctx.idempotency_key, ctx.message.id, -back});
    if (!ins.ok()) return HandlerResult::Retryable(ins.status().ToString());
    auto upd = ctx.tx.Exec("UPDATE accounts SET balance = balance + ? WHERE owner = 'u1'", {back});
    if (!upd.ok()) return HandlerResult::Retryable(upd.status().ToString());
    return HandlerResult::Ok(event);
  };
  return spec;
}

TEST_F(KafkaOrderedRetry, AHeldKeyNeverBlocksAnotherKeyAndItsOwnLaterEventsWaitBehindIt) {
  PublishEvents({"O1:pay", "O1:ship", "O1:refund", "O2:pay", "O2:ship", "O2:refund"});
  // O1's payment fails (retryably) until every event of O2 — published after
  // it, in the same partition — has been applied: if O1's hold blocked O2, O1
  // would run out of attempts and be dead-lettered.
  std::atomic<int> o1_runs{0};
  auto handler = OrderHandler([&](HandlerContext& ctx, const std::string& event) -> std::optional<HandlerResult> {
    if (event != "pay" || ctx.idempotency_key.find("O1") == std::string::npos) return std::nullopt;
    ++o1_runs;
    auto o2 = ctx.tx.Query("SELECT COUNT(*) FROM effects WHERE key LIKE 'pay:O2-%'", {});
    if (!o2.ok() || AsInt((*o2)[0][0]) < 3) return HandlerResult::Retryable("bank timeout");
    return std::nullopt;
  });
  PipelineOptions options = Options();
  options.retry.ladder_ms = {50};
  options.retry.max_attempts = 1'000;
  // max_waiting=2: the records waiting behind O1 and O2 soon fill what the
  // member keeps, so it pauses the partition (seeking back) and resumes it once
  // they went out; nothing may be skipped or applied twice on the way.
  auto worker = Start(handler, options, "&max_waiting=2");
  ASSERT_NE(worker, nullptr);
  ASSERT_TRUE(WaitApplied(6)) << ::testing::PrintToString(Applied());
  worker.reset();

  EXPECT_GE(o1_runs.load(), 2) << "O1's payment was retried";
  EXPECT_EQ(AppliedOf("O2"), (std::vector<std::string>{"O2-pay", "O2-ship", "O2-refund"}));
  EXPECT_EQ(AppliedOf("O1"), (std::vector<std::string>{"O1-pay", "O1-ship", "O1-refund"}))
      << "O1's later events overtook its retried payment";
  EXPECT_EQ(Applied().front(), "O2-pay") << "O2 went first, while O1 was held";
  EXPECT_EQ(Balance(*store_, "u1"), 1'000'000) << "every payment refunded";
  EXPECT_EQ(Effects(), 6);
  EXPECT_TRUE(OpenKafka(kOrdered)->dead_letters()->List(10)->empty());
  EXPECT_EQ(Committed(), 6) << "everything settled is committed at close";
  // In place: nothing went to a retry topic.
  auto options_url = ParseKafkaUrl(Url(kOrdered));
  ASSERT_TRUE(options_url.ok());
  auto reader = kafka::TopicReader::Open(*options_url, MockKafka::Get().bootstrap());
  ASSERT_TRUE(reader.ok());
  for (const char* rung : {"100", "200", "300"}) {
    auto ranges = reader->Ranges(topic_ + "-retry-" + rung);
    ASSERT_TRUE(ranges.ok()) << ranges.status().ToString();
    for (const auto& r : *ranges) EXPECT_EQ(r.high, 0) << "retry topic " << rung;
  }
}

// A charge retried until its top-up (another key, published after the charge's
// own later events) is applied. The records waiting behind a held key are not
// bounded by prefetch (librdkafka's fetch-ahead): with that bound the charge's
// three later events paused the partition, and the pause, which only the held
// key could lift, kept the top-up unfetched until the charge ran out of attempts.
TEST_F(KafkaOrderedRetry, EventsWaitingBehindAHeldKeyNeverKeepBackTheOtherKeyItWaitsFor) {
  PublishEvents({"O1:pay", "O1:ship", "O1:finish", "O1:refund", "T1:pay"});
  std::atomic<int> o1_runs{0};
  auto handler = OrderHandler([&](HandlerContext& ctx, const std::string& event) -> std::optional<HandlerResult> {
    if (event != "pay" || ctx.idempotency_key.find("O1") == std::string::npos) return std::nullopt;
    ++o1_runs;
    auto topup = ctx.tx.Query("SELECT COUNT(*) FROM effects WHERE key = 'pay:T1-pay'", {});
    if (!topup.ok() || AsInt((*topup)[0][0]) == 0) return HandlerResult::Retryable("insufficient balance");
    return std::nullopt;
  });
  PipelineOptions options = Options();
  options.batch_size = 1;  // one record per poll: O1's later events are fetched before the top-up
  options.retry.ladder_ms = {50};
  options.retry.max_attempts = 20;  // about a second of patience, then O1's charge would be dead-lettered
  auto worker = Start(handler, options, "&prefetch=2");
  ASSERT_NE(worker, nullptr);
  auto inspector = OpenKafka(kOrdered);
  ASSERT_TRUE(WaitFor(
      [&] {
        auto dead = inspector->dead_letters()->List(10);
        return Applied().size() == 5 || (dead.ok() && !dead->empty());
      },
      60'000));
  worker.reset();

  auto dead = inspector->dead_letters()->List(10);
  ASSERT_TRUE(dead.ok());
  EXPECT_TRUE(dead->empty()) << "dead-lettered: " << (dead->empty() ? "" : (*dead)[0].reason);
  EXPECT_EQ(Applied().front(), "T1-pay") << "the top-up went first, while O1 was held";
  EXPECT_EQ(AppliedOf("O1"), (std::vector<std::string>{"O1-pay", "O1-ship", "O1-finish", "O1-refund"}));
  EXPECT_GE(o1_runs.load(), 2) << "O1's charge was retried";
  EXPECT_EQ(Committed(), 5);
}

TEST_F(KafkaOrderedRetry, ARefundNeverOvertakesItsOrderUnderRetriesAndAChangeOfOwner) {
  PublishEvents({"O2:pay", "O1:pay", "O1:ship", "O1:finish", "O1:refund", "O2:ship"});
  // O1's payment fails on its first two runs. The first member applies what
  // it can and leaves after O1's first failure, so the partition moves to a
  // second member while O1 is held.
  std::atomic<int> o1_runs{0};
  auto handler = OrderHandler([&](HandlerContext& ctx, const std::string& event) -> std::optional<HandlerResult> {
    if (event != "pay" || ctx.idempotency_key.find("O1") == std::string::npos) return std::nullopt;
    if (++o1_runs <= 2) return HandlerResult::Retryable("bank timeout (run " + std::to_string(o1_runs) + ")");
    return std::nullopt;
  });
  auto first = Start(handler);
  ASSERT_NE(first, nullptr);
  ASSERT_TRUE(WaitFor([&] { return o1_runs.load() >= 1 && AppliedOf("O2").size() == 2; }, 60'000))
      << ::testing::PrintToString(Applied());
  first.reset();  // commits what is settled and leaves the group
  // O2's two events (offsets 0 and 5) are settled, O1's payment (offset 1) is
  // not: nothing past it is committed, though O2's ship behind it is done.
  EXPECT_EQ(Committed(), 1);
  EXPECT_TRUE(AppliedOf("O1").empty()) << "O1's events overtook its failed payment";

  auto second = Start(handler);
  ASSERT_NE(second, nullptr);
  ASSERT_TRUE(WaitApplied(6)) << ::testing::PrintToString(Applied());
  second.reset();
  EXPECT_EQ(o1_runs.load(), 3);
  EXPECT_EQ(AppliedOf("O1"), (std::vector<std::string>{"O1-pay", "O1-ship", "O1-finish", "O1-refund"}));
  EXPECT_EQ(Balance(*store_, "u1"), 1'000'000 - 100) << "O2 paid, O1 paid and refunded";
  EXPECT_EQ(Effects(), 6) << "O2's ship, handed out again to the second member, applied once";
  EXPECT_TRUE(OpenKafka(kOrdered)->dead_letters()->List(10)->empty());
  EXPECT_EQ(Committed(), 6);
}

TEST_F(KafkaOrderedRetry, AfterItsLadderTheEventIsDeadLetteredAndItsKeyGoesOn) {
  PublishEvents({"O1:pay", "O1:ship", "O2:pay"});
  // O1's payment always fails retryably; O1's ship then finds no payment and
  // is dead-lettered too — but only once the payment was given up.
  std::atomic<int> pay_runs{0};
  std::atomic<int> pay_runs_when_shipped{-1};
  auto handler = OrderHandler([&](HandlerContext& ctx, const std::string& event) -> std::optional<HandlerResult> {
    const bool o1 = ctx.idempotency_key.find("O1") != std::string::npos;
    if (o1 && event == "pay") {
      ++pay_runs;
      return HandlerResult::Retryable("bank timeout");
    }
    if (o1 && event == "ship") pay_runs_when_shipped = pay_runs.load();
    return std::nullopt;
  });
  auto worker = Start(handler);  // max_attempts 4, ladder 100, 200, 300 ms
  ASSERT_NE(worker, nullptr);
  auto inspector = OpenKafka(kOrdered);
  ASSERT_TRUE(WaitFor(
      [&] {
        auto dead = inspector->dead_letters()->List(10);
        return dead.ok() && dead->size() == 2;
      },
      60'000));
  ASSERT_TRUE(WaitUntilConsumed(1));
  worker.reset();

  EXPECT_EQ(pay_runs.load(), 4);
  EXPECT_EQ(pay_runs_when_shipped.load(), 4) << "the key was released only after the payment's last attempt";
  EXPECT_EQ(Applied(), (std::vector<std::string>{"O2-pay"}));
  auto dead = inspector->dead_letters()->List(10);
  ASSERT_TRUE(dead.ok());
  ASSERT_EQ(dead->size(), 2u);
  EXPECT_NE((*dead)[0].message.payload.find("\"event\":\"pay\""), std::string::npos) << "the payment first";
  EXPECT_NE((*dead)[0].reason.find("gave up after 4 attempts"), std::string::npos) << (*dead)[0].reason;
  EXPECT_EQ((*dead)[0].attempts, 4);
  EXPECT_LT((*dead)[0].first_failed_ms, (*dead)[0].last_failed_ms) << "its first failure is kept";
  EXPECT_NE((*dead)[1].reason.find("ship before the order's payment"), std::string::npos) << (*dead)[1].reason;
  EXPECT_EQ(Committed(), 3);
}

}  // namespace
}  // namespace idem::testing
