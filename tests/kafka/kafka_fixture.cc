#include "kafka/kafka_fixture.h"

#include "testing/consumer_group.h"

namespace idem::testing {

KafkaWorker::KafkaWorker(std::unique_ptr<Broker> broker, std::unique_ptr<Store> store, PipelineOptions options,
                         HandlerSpec handler)
    : broker_(std::move(broker)), store_(std::move(store)) {
  pipeline_ = std::make_unique<Pipeline>(&broker_->source(), store_.get(), Env::Default(), options);
  Status s = pipeline_->Register(std::move(handler));
  EXPECT_TRUE(s.ok()) << s.ToString();
  thread_ = std::thread([this] {
    while (!stop_) (void)pipeline_->RunOnce();
  });
}

KafkaWorker::~KafkaWorker() {
  Stop();
  pipeline_.reset();
  broker_.reset();
}

void KafkaWorker::Stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

void KafkaPipelineTest::SetUp() {
  topic_ = MockKafka::Get().FreshTopic(partitions_);
  auto store = OpenSqliteStore(dir_.File("store.db"), {}, Env::Default());
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  store_ = std::move(*store);
  CreateEffectTables(*store_);
}

std::string KafkaPipelineTest::Url(const std::string& extra) const {
  return MockKafka::Get().Url(topic_, "&retry_delays_ms=100,200,300&commit_interval_ms=200" + extra);
}

std::unique_ptr<Broker> KafkaPipelineTest::OpenKafka(const std::string& extra) {
  auto b = OpenBroker(Url(extra), BrokerOptions{}, Env::Default());
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return b.ok() ? std::move(*b) : nullptr;
}

PipelineOptions KafkaPipelineTest::Options() {
  PipelineOptions o;
  o.batch_size = 20;
  o.max_linger_ms = 50;
  o.retry.ladder_ms = {100, 200, 300};
  o.retry.max_attempts = 4;
  o.unavailable_backoff_min_ms = 50;
  o.unavailable_backoff_max_ms = 500;
  return o;
}

void KafkaPipelineTest::PublishPayments(int first, int n, int copies) {
  auto broker = OpenKafka();
  ASSERT_NE(broker, nullptr);
  std::vector<Message> batch;
  for (int c = 0; c < copies; ++c)
    for (int i = first; i < first + n; ++i) {
      Message m;
      m.topic = "pay";
      m.key = "P" + std::to_string(i);
      m.payload = R"({"payment_id":"P)" + std::to_string(i) + R"(","amount":)" + std::to_string(i + 1) +
                  R"(,"user":"u1"})";
      batch.push_back(std::move(m));
    }
  Status s = broker->publisher().PublishBatch(batch, 0);
  ASSERT_TRUE(s.ok()) << s.ToString();
}

void KafkaPipelineTest::PublishRaw(const std::string& key, const std::string& payload) {
  auto broker = OpenKafka();
  ASSERT_NE(broker, nullptr);
  std::vector<Message> batch(1);
  batch[0].topic = "pay";
  batch[0].key = key;
  batch[0].payload = payload;
  Status s = broker->publisher().PublishBatch(batch, 0);
  ASSERT_TRUE(s.ok()) << s.ToString();
}

std::unique_ptr<KafkaWorker> KafkaPipelineTest::StartWorker(const std::string& extra, HandlerSpec handler) {
  auto broker = OpenKafka(extra);
  auto store = OpenSqliteStore(dir_.File("store.db"), {}, Env::Default());
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  if (!broker || !store.ok()) return nullptr;
  return std::make_unique<KafkaWorker>(std::move(broker), std::move(*store), Options(), std::move(handler));
}

bool KafkaPipelineTest::WaitUntilConsumed(int n) {
  auto inspector = OpenKafka();
  if (!inspector) return false;
  return WaitFor(
      [&] {
        if (DistinctEffects() < n) return false;
        auto st = inspector->Stats();
        return st.ok() && st->ready == 0 && st->delayed == 0;
      },
      60'000);
}

}  // namespace idem::testing
