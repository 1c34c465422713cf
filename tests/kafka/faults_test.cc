// Faults injected through the mock cluster's fault API: failing offset commits
// and brokers going down and coming back. Nothing is lost, nothing doubled.
// And the control: a naive consumer (auto commit, no guard) on the same
// workload does damage.
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include "idem/kafka.h"
#include "kafka/kafka_fixture.h"
#include "testing/consumer_group.h"

namespace idem::testing {
namespace {

constexpr int16_t kOffsetCommit = 8;  // Kafka API key

class KafkaFaults : public KafkaPipelineTest {};

TEST_F(KafkaFaults, FailingCommitsLoseNothingAndDoubleNothing) {
  constexpr int kPayments = 100;
  PublishPayments(0, kPayments);
  // Commits fail for a while: the settled offsets wait, and are committed by a later try.
  std::vector<rd_kafka_resp_err_t> errors(10, RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE);
  rd_kafka_mock_push_request_errors_array(MockKafka::Get().cluster(), kOffsetCommit, errors.size(), errors.data());
  {
    auto worker = StartWorker();
    ASSERT_NE(worker, nullptr);
    ASSERT_TRUE(WaitUntilConsumed(kPayments)) << DistinctEffects() << " payments took effect";
  }
  rd_kafka_mock_clear_request_errors(MockKafka::Get().cluster(), kOffsetCommit);
  // A consumer restarted on the same group gets only what was not committed; the guard absorbs it.
  PublishPayments(kPayments, 10);
  auto again = StartWorker();
  ASSERT_TRUE(WaitUntilConsumed(kPayments + 10));
  again.reset();
  EXPECT_EQ(Effects(), kPayments + 10);
  EXPECT_EQ(DistinctEffects(), kPayments + 10);
}

TEST_F(KafkaFaults, BrokersDownAndUpLoseNothingAndDoubleNothing) {
  constexpr int kPayments = 100;
  PublishPayments(0, kPayments);
  auto worker = StartWorker();
  ASSERT_NE(worker, nullptr);
  ASSERT_TRUE(WaitFor([&] { return DistinctEffects() >= 10; }, 60'000));
  auto inspector = OpenKafka("&request_timeout_ms=2000");
  ASSERT_NE(inspector, nullptr);
  for (int32_t id = 1; id <= 3; ++id) rd_kafka_mock_broker_set_down(MockKafka::Get().cluster(), id);
  EXPECT_FALSE(inspector->Stats().ok()) << "the cluster answered while every broker was down";
  for (int32_t id = 1; id <= 3; ++id) rd_kafka_mock_broker_set_up(MockKafka::Get().cluster(), id);
  ASSERT_TRUE(WaitUntilConsumed(kPayments)) << DistinctEffects() << " payments took effect";
  worker.reset();
  EXPECT_EQ(Effects(), kPayments);
}

// A consumer as many are written: auto commit every 100 ms in the background,
// each record applied as it comes, no consumption record. Two members of one
// group; producers resend every payment once.
class NaiveSource final : public Source {
 public:
  NaiveSource(const std::string& bootstrap, const std::string& topic, const std::string& group) {
    char err[512];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    for (auto [k, v] : std::vector<std::pair<std::string, std::string>>{{"bootstrap.servers", bootstrap},
                                                                        {"group.id", group},
                                                                        {"enable.auto.commit", "true"},
                                                                        {"auto.commit.interval.ms", "100"},
                                                                        {"auto.offset.reset", "earliest"},
                                                                        {"session.timeout.ms", "6000"},
                                                                        {"log_level", "3"}})
      rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof err);
    rk_ = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    rd_kafka_poll_set_consumer(rk_);
    rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(list, topic.c_str(), RD_KAFKA_PARTITION_UA);
    rd_kafka_subscribe(rk_, list);
    rd_kafka_topic_partition_list_destroy(list);
  }
  ~NaiveSource() override {
    rd_kafka_consumer_close(rk_);
    rd_kafka_destroy(rk_);
  }
  Result<std::vector<Message>> Poll(size_t max, int64_t wait_ms) override {
    std::vector<Message> out;
    while (out.size() < max) {
      rd_kafka_message_t* m = rd_kafka_consumer_poll(rk_, out.empty() ? static_cast<int>(wait_ms) : 0);
      if (!m) break;
      if (!m->err) {
        Message msg;
        msg.topic = "pay";
        msg.id = std::to_string(m->partition) + "@" + std::to_string(m->offset);
        msg.payload.assign(static_cast<const char*>(m->payload), m->len);
        out.push_back(std::move(msg));
      }
      rd_kafka_message_destroy(m);
    }
    return out;
  }
  Status Settle(const std::vector<Settlement>&) override { return Status::OK(); }  // auto commit did it
  Status Abandon() override { return Status::OK(); }

 private:
  rd_kafka_t* rk_ = nullptr;
};

TEST_F(KafkaFaults, TheNaiveAutoCommitConsumerDoesDamageOnTheSameWorkload) {
  constexpr int kPayments = 100;
  PublishPayments(0, kPayments, /*copies=*/2);
  PipelineOptions o = Options();
  o.protection = false;
  NaiveSource naive(MockKafka::Get().bootstrap(), topic_, "naive." + topic_);
  auto store = OpenSqliteStore(dir_.File("store.db"), {}, Env::Default());
  ASSERT_TRUE(store.ok());
  Pipeline pipeline(&naive, store->get(), Env::Default(), o);
  ASSERT_TRUE(pipeline.Register(PayHandler()).ok());
  ASSERT_TRUE(WaitFor(
      [&] {
        (void)pipeline.RunOnce();
        return pipeline.counters().received >= 2 * kPayments;
      },
      60'000));
  EXPECT_GT(Effects(), kPayments) << "the naive consumer charged each resent payment once only";
}

}  // namespace
}  // namespace idem::testing
