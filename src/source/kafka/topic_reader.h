// Reading whole topics outside the consumer group: the dead-letter console and
// the lag figures of Stats. A short-lived consumer that assigns partitions
// itself, never joins the group and never commits.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "idem/kafka.h"
#include "source/kafka/group_consumer.h"
#include "source/kafka/rdkafka_handles.h"

namespace idem::kafka {

struct PartitionRange {
  PartitionKey key;
  int64_t low = 0;        // first offset still stored
  int64_t high = 0;       // offset the next record will get
  int64_t committed = -1; // the group's committed offset, -1 if none
};

class TopicReader {
 public:
  // `create`: its metadata requests create missing topics where the cluster
  // allows auto-creation (the mock cluster always does).
  static Result<TopicReader> Open(const KafkaOptions& options, const std::string& bootstrap, bool create = false);

  // The partitions of `topic` with their offsets; none when the topic does not exist.
  Result<std::vector<PartitionRange>> Ranges(const std::string& topic);
  // Calls `visit` for every stored record of `topic`, partition by partition, in offset order.
  Status ReadAll(const std::string& topic, const std::function<void(const rd_kafka_message_t*)>& visit);

 private:
  KafkaHandle rk_;
  int64_t timeout_ms_ = 0;
};

}  // namespace idem::kafka
