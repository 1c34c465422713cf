// A backend adapter's diagnostics (idem/backend_log.h) become lines of the
// service's JSON log while a BackendLogRoute lives, written with write(2) to
// the log's file descriptor.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "idem/backend_log.h"
#include "service/json_log.h"
#include "testing/test_util.h"

namespace idem {
namespace {

std::vector<nlohmann::json> Lines(const std::string& file) {
  std::vector<nlohmann::json> out;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
  return out;
}

TEST(BackendLogRouteTest, AdapterLinesAreJsonLinesOfTheServiceLog) {
  testing::TempDir dir;
  const std::string file = dir.File("log.jsonl");
  const int fd = open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  {
    service::JsonLog log(fd, Env::Default());
    service::BackendLogRoute route(&log);
    BackendLog(BackendLogLevel::kWarn, "kafka", "kafka_commit_failed",
               "Broker: Group rebalance in progress; later commits retry");
    BackendLog(BackendLogLevel::kError, "librdkafka", "kafka_client_log", "Connect failed: refused",
               {{"facility", "FAIL"}, {"broker", "127.0.0.1:9092/1"}});
  }
  // The route is gone: back to stderr, nothing more in the file.
  BackendLog(BackendLogLevel::kInfo, "kafka", "after_the_route", "to stderr");
  close(fd);

  const auto lines = Lines(file);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].value("level", ""), "warn");
  EXPECT_EQ(lines[0].value("event", ""), "kafka_commit_failed");
  EXPECT_EQ(lines[0].value("source", ""), "kafka");
  EXPECT_EQ(lines[0].value("message", ""), "Broker: Group rebalance in progress; later commits retry");
  EXPECT_TRUE(lines[0].contains("ts"));
  EXPECT_EQ(lines[1].value("level", ""), "error");
  EXPECT_EQ(lines[1].value("source", ""), "librdkafka");
  EXPECT_EQ(lines[1].value("facility", ""), "FAIL") << "a field is a key of its own";
  EXPECT_EQ(lines[1].value("broker", ""), "127.0.0.1:9092/1");
}

}  // namespace
}  // namespace idem
