// Kafka's refusals said as what they are: a record over message.max.bytes is
// refused before anything of its batch is produced (InvalidArgument, never
// retried), librdkafka's and the cluster's errors map to retry or never, and
// `idem publish` stops at the line that cannot go, says exactly how far it got,
// and a rerun with the --skip-lines it prints sends every later line once.
#include <nlohmann/json.hpp>

#include "kafka/kafka_fixture.h"
#include "source/kafka/rdkafka_handles.h"

namespace idem::testing {
namespace {

TEST(KafkaErrors, EachErrorSaysWhetherRetryingCanHelp) {
  struct Case {
    rd_kafka_resp_err_t err;
    bool retryable;
  };
  const std::vector<Case> cases = {
      {RD_KAFKA_RESP_ERR__TRANSPORT, true},
      {RD_KAFKA_RESP_ERR__MSG_TIMED_OUT, true},
      {RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN, true},
      {RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION, true},
      {RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS, true},
      {RD_KAFKA_RESP_ERR__QUEUE_FULL, true},
      {RD_KAFKA_RESP_ERR_NETWORK_EXCEPTION, true},
      {RD_KAFKA_RESP_ERR_KAFKA_STORAGE_ERROR, true},
      {RD_KAFKA_RESP_ERR__TIMED_OUT_QUEUE, true},
      {RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE, false},
      {RD_KAFKA_RESP_ERR_INVALID_MSG_SIZE, false},
      {RD_KAFKA_RESP_ERR_RECORD_LIST_TOO_LARGE, false},
      {RD_KAFKA_RESP_ERR_TOPIC_EXCEPTION, false},
      {RD_KAFKA_RESP_ERR_INVALID_RECORD, false},
      {RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED, false},
      {RD_KAFKA_RESP_ERR__INVALID_ARG, false},
  };
  for (const Case& c : cases) {
    Status s = kafka::KafkaError("producing to pay", c.err);
    EXPECT_FALSE(s.ok()) << rd_kafka_err2name(c.err);
    EXPECT_EQ(s.IsRetryable(), c.retryable) << rd_kafka_err2name(c.err) << ": " << s.ToString();
  }
  EXPECT_NE(kafka::KafkaError("producing to pay", RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE).message().find("smaller"),
            std::string::npos)
      << "the error says what to do";
}

std::string Line(const std::string& id, size_t pad = 0) {
  return nlohmann::json{{"payment_id", id}, {"amount", 1}, {"pad", std::string(pad, 'p')}}.dump();
}

class KafkaPublishRefusals : public KafkaPipelineTest {
 protected:
  int64_t Ready() {
    auto inspector = OpenKafka();
    auto st = inspector->Stats();
    EXPECT_TRUE(st.ok()) << st.status().ToString();
    return st.ok() ? st->ready : -1;
  }
  ProcessResult Idem(std::vector<std::string> args, const std::string& input = "") {
    args.insert(args.begin(), IDEM_CLI_PATH);
    return RunProcess(args, input);
  }
};

TEST_F(KafkaPublishRefusals, ARecordOverMessageMaxBytesFailsItsBatchBeforeAnythingIsProduced) {
  auto broker = OpenKafka();
  std::vector<Message> batch(3);
  for (int i = 0; i < 3; ++i) {
    batch[i].topic = "pay";
    batch[i].key = "P" + std::to_string(i);
    batch[i].payload = Line(batch[i].key, i == 1 ? 1'000'000 : 0);
  }
  Status s = broker->publisher().PublishBatch(batch);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s.ToString();
  EXPECT_FALSE(s.IsRetryable());
  EXPECT_NE(s.message().find("message.max.bytes"), std::string::npos) << s.message();
  EXPECT_LT(s.message().size(), 600u);
  std::vector<Message> next = {batch[0]};
  ASSERT_TRUE(broker->publisher().PublishBatch(next).ok());
  broker.reset();
  EXPECT_EQ(Ready(), 1) << "nothing of the refused batch was produced";
}

TEST_F(KafkaPublishRefusals, IdemPublishStopsAtTheLineAndTheRerunItPrintsSendsTheRestOnce) {
  // Line 4 is within --max-payload-bytes (1 MiB) but over Kafka's 1,000,000.
  std::string input, fixed;
  for (int i = 1; i <= 6; ++i) {
    input += Line("P" + std::to_string(i), i == 4 ? 1'000'100 : 0) + "\n";
    fixed += Line("P" + std::to_string(i)) + "\n";
  }
  const std::vector<std::string> args = {"publish", "--queue", Url(), "--topic", "pay", "--key-fields", "payment_id"};
  ProcessResult first = Idem(args, input);
  EXPECT_EQ(first.exit_code, 1) << first.err;
  EXPECT_NE(first.err.find("line 4 cannot be published"), std::string::npos) << first.err;
  EXPECT_NE(first.err.find("3 message(s) published; lines 1–3 are done"), std::string::npos) << first.err;
  EXPECT_NE(first.err.find("--skip-lines 3"), std::string::npos) << first.err;
  EXPECT_LT(first.err.size(), 2000u) << "the line is not echoed";
  EXPECT_EQ(Ready(), 3) << "lines 1-3 once each, nothing of line 4 or later";

  std::vector<std::string> resume = args;
  resume.insert(resume.end(), {"--skip-lines", "3"});
  ProcessResult second = Idem(resume, fixed);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_NE(second.out.find("published 3 message(s)"), std::string::npos) << second.out;
  EXPECT_EQ(Ready(), 6) << "every line exactly once over both runs";

  auto worker = StartWorker();
  ASSERT_TRUE(WaitUntilConsumed(6));
  worker.reset();
  EXPECT_EQ(Effects(), 6);
}

}  // namespace
}  // namespace idem::testing
