#include "kafka/mock_kafka.h"

#include <gtest/gtest.h>
#include <unistd.h>

namespace idem::testing {

MockKafka& MockKafka::Get() {
  static MockKafka* mock = new MockKafka;  // never destroyed: clients may still be closing at exit
  return *mock;
}

MockKafka::MockKafka() {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "log_level", "3", err, sizeof err);
  owner_ = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  cluster_ = rd_kafka_mock_cluster_new(owner_, 3);
  bootstrap_ = rd_kafka_mock_cluster_bootstraps(cluster_);
}

std::string MockKafka::FreshTopic(int partitions) {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = std::string("t.") + info->test_suite_name() + "." + info->name() + "." +
                     std::to_string(getpid()) + "." + std::to_string(++counter_);
  for (char& c : name)
    if (!(isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_')) c = '_';
  rd_kafka_mock_topic_create(cluster_, name.c_str(), partitions, 1);
  return name;
}

std::string MockKafka::Url(const std::string& topic, const std::string& extra) const {
  return "kafka://" + bootstrap_ + "/" + topic + "?group=g." + topic + "&session_timeout_ms=6000" + extra;
}

}  // namespace idem::testing
