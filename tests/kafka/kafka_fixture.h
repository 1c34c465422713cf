// Shared setup of the Kafka pipeline tests: a fresh topic on the mock cluster,
// a SQLite store with the effects tables, payments published with their
// payment id as the Kafka key (so copies of one payment share a partition), and
// consumers that each run a pipeline on their own thread, as separate worker
// processes would.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "idem/broker.h"
#include "idem/pipeline.h"
#include "idem/store.h"
#include "kafka/mock_kafka.h"
#include "testing/test_util.h"

namespace idem::testing {

// One consumer: its own broker (group member), store connection and pipeline,
// running RunOnce on a thread until stopped.
class KafkaWorker {
 public:
  KafkaWorker(std::unique_ptr<Broker> broker, std::unique_ptr<Store> store, PipelineOptions options,
              HandlerSpec handler);
  ~KafkaWorker();  // stops, then closes the broker (commits what is settled, leaves the group)
  void Stop();
  Broker& broker() { return *broker_; }
  const DecisionCounters& counters() const { return pipeline_->counters(); }

 private:
  std::unique_ptr<Broker> broker_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<Pipeline> pipeline_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

class KafkaPipelineTest : public ::testing::Test {
 protected:
  void SetUp() override;

  std::string Url(const std::string& extra = "") const;
  std::unique_ptr<Broker> OpenKafka(const std::string& extra = "");
  // Publishes payment P<i> for i in [first, first + n), amount i + 1, each in `copies` copies.
  void PublishPayments(int first, int n, int copies = 1);
  void PublishRaw(const std::string& key, const std::string& payload);
  std::unique_ptr<KafkaWorker> StartWorker(const std::string& extra = "", HandlerSpec handler = PayHandler());
  static PipelineOptions Options();

  // Waits (a liveness bound, not a timing assertion) until `n` distinct
  // payments have effects and the group has consumed everything, main and
  // retry topics. Returns whether it got there.
  bool WaitUntilConsumed(int n);
  int64_t Effects() { return CountEffects(*store_); }
  int64_t DistinctEffects() { return QueryInt(*store_, "SELECT COUNT(DISTINCT key) FROM effects"); }

  TempDir dir_;
  std::unique_ptr<Store> store_;
  std::string topic_;
  int partitions_ = 4;
};

}  // namespace idem::testing
