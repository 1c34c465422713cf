// librdkafka's own log lines reach the process's backend log hook — the
// service points it at its JSON log — instead of being written to stderr.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "idem/backend_log.h"
#include "idem/kafka.h"
#include "source/kafka/client_config.h"

namespace idem {
namespace {

TEST(KafkaBackendLogTest, LibrdkafkaLinesGoThroughTheBackendLogHook) {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> lines;  // "source|event|message"
  SetBackendLogHook([&](BackendLogLevel, std::string_view source, std::string_view event, std::string_view message,
                        std::span<const BackendLogField>) {
    std::lock_guard<std::mutex> lock(mu);
    lines.push_back(std::string(source) + "|" + std::string(event) + "|" + std::string(message));
    cv.notify_all();
  });
  auto from_librdkafka = [&] {
    for (const std::string& l : lines)
      if (l.rfind("librdkafka|kafka_client_log|", 0) == 0) return true;
    return false;
  };
  {
    // Every client idem creates starts from BaseConfig. With the broker debug
    // context on, librdkafka logs from its own threads as soon as the client
    // exists (bootstrap brokers added, connection attempts), no server needed.
    KafkaOptions o;
    o.rdkafka = {{"debug", "broker"}, {"log_level", "7"}};
    auto conf = kafka::BaseConfig(o, "127.0.0.1:1");
    ASSERT_TRUE(conf.ok()) << conf.status().ToString();
    auto client = kafka::NewClient(RD_KAFKA_PRODUCER, std::move(*conf));
    ASSERT_TRUE(client.ok()) << client.status().ToString();
    std::unique_lock<std::mutex> lock(mu);
    // The bound is this test's own timeout, not a figure the client must meet.
    EXPECT_TRUE(cv.wait_for(lock, std::chrono::seconds(60), from_librdkafka)) << "lines seen: " << lines.size();
  }
  SetBackendLogHook(nullptr);
}

}  // namespace
}  // namespace idem
