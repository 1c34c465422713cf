// librdkafka's error callback, for a broker that is down, is a line of the
// service's JSON log with its level, code and broker, and nothing of it
// reaches stderr.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "service/json_log.h"
#include "source/kafka/client_config.h"
#include "testing/consumer_group.h"
#include "testing/test_util.h"

#include <librdkafka/rdkafka_mock.h>

namespace idem {
namespace {

std::string ReadAll(const std::string& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// stderr goes to `file` while this lives.
class StderrCapture {
 public:
  explicit StderrCapture(const std::string& file) : saved_(dup(2)) {
    const int fd = open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 2);
    close(fd);
  }
  ~StderrCapture() {
    dup2(saved_, 2);
    close(saved_);
  }

 private:
  int saved_;
};

TEST(KafkaClientErrorLogTest, ABrokerThatIsDownIsAJsonLineWithItsBrokerAndNothingOnStderr) {
  testing::TempDir dir;
  const std::string log_file = dir.File("log.jsonl");
  const std::string stderr_file = dir.File("stderr.txt");
  const int fd = open(log_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  nlohmann::json error_line;
  std::string bootstrap;
  {
    StderrCapture capture(stderr_file);
    service::JsonLog log(fd, Env::Default());
    service::BackendLogRoute route(&log);
    // A cluster of its own, so stopping its broker touches no other test.
    KafkaOptions o;
    auto owner_conf = kafka::BaseConfig(o, "");
    ASSERT_TRUE(owner_conf.ok()) << owner_conf.status().ToString();
    auto owner = kafka::NewClient(RD_KAFKA_PRODUCER, std::move(*owner_conf));
    ASSERT_TRUE(owner.ok()) << owner.status().ToString();
    rd_kafka_mock_cluster_t* cluster = rd_kafka_mock_cluster_new(owner->get(), 1);
    ASSERT_NE(cluster, nullptr);
    bootstrap = rd_kafka_mock_cluster_bootstraps(cluster);
    ASSERT_EQ(rd_kafka_mock_broker_set_down(cluster, 1), RD_KAFKA_RESP_ERR_NO_ERROR);

    auto conf = kafka::BaseConfig(o, bootstrap);
    ASSERT_TRUE(conf.ok()) << conf.status().ToString();
    auto client = kafka::NewClient(RD_KAFKA_PRODUCER, std::move(*conf));
    ASSERT_TRUE(client.ok()) << client.status().ToString();
    // The error callback runs inside the client's poll; the bound is this
    // test's own timeout, not a figure the client must meet.
    const bool seen = testing::WaitFor(
        [&] {
          rd_kafka_poll(client->get(), 10);
          std::istringstream lines(ReadAll(log_file));
          for (std::string line; std::getline(lines, line);) {
            auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
            // The one about the broker that is down (others, "1/1 brokers are down", are about none).
            if (j.is_object() && j.value("event", "") == "kafka_client_error" && !j.value("broker", "").empty()) {
              error_line = j;
              return true;
            }
          }
          return false;
        },
        60'000);
    client->reset();
    rd_kafka_mock_cluster_destroy(cluster);
    ASSERT_TRUE(seen) << "no kafka_client_error line in:\n" << ReadAll(log_file);
  }
  close(fd);

  EXPECT_EQ(error_line.value("level", ""), "warn") << "librdkafka retries a broker that is down: " << error_line;
  EXPECT_EQ(error_line.value("source", ""), "librdkafka");
  EXPECT_FALSE(error_line.value("code", "").empty()) << error_line;
  EXPECT_FALSE(error_line.value("message", "").empty()) << error_line;
  EXPECT_NE(error_line.value("client", "").find("rdkafka#producer"), std::string::npos) << error_line;
  // The mock's brokers are HOST:PORT/ID, bootstrap names HOST:PORT/bootstrap.
  EXPECT_EQ(error_line.value("broker", "").rfind(bootstrap + "/", 0), 0u) << error_line;
  EXPECT_EQ(ReadAll(stderr_file), "") << "the Kafka client wrote to stderr beside the JSON log";
}

}  // namespace
}  // namespace idem
