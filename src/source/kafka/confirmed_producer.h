// ConfirmedProducer: produces records with acks=all on the idempotent producer
// and returns only when the cluster confirmed every one (its delivery report).
// Used for PublishBatch and for every move (retry topic, dead-letter topic,
// replay): the original offset may only be committed after its copy is confirmed.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "idem/kafka.h"
#include "source/kafka/rdkafka_handles.h"

namespace idem::kafka {

struct OutRecord {
  std::string topic;
  int32_t partition = RD_KAFKA_PARTITION_UA;  // unassigned: the partitioner picks by key
  bool has_key = false;
  std::string key;
  std::string value;
  std::vector<std::pair<std::string, std::string>> headers;
  // Filled in by ProduceAll when confirmed.
  int32_t stored_partition = -1;
  int64_t stored_offset = -1;
  int64_t stored_timestamp_ms = 0;
  // Set by ProduceAll when the record was refused for good (too large, invalid):
  // producing it again cannot succeed.
  bool refused = false;
};

class ConfirmedProducer {
 public:
  static Result<std::unique_ptr<ConfirmedProducer>> Open(const KafkaOptions& options, const std::string& bootstrap);
  ~ConfirmedProducer();

  // Produces `records` in order and waits for their delivery reports. OK only if
  // every one is confirmed; otherwise the error of the first that failed (some
  // may be stored: a caller that retries makes copies, never losses). A record
  // over message.max.bytes is refused first, with InvalidArgument, and then
  // nothing is produced; a record librdkafka refuses stops the batch there.
  [[nodiscard]] Status ProduceAll(std::vector<OutRecord>& records);

  // InvalidArgument when `r` can never be produced (over message.max.bytes);
  // the message names the size, the limit and what to do.
  Status CheckProducible(const OutRecord& r) const;

  rd_kafka_t* handle() { return rk_.get(); }
  // The producer's message.max.bytes: the most a record's key, value and
  // headers may take (record_fit.h).
  size_t max_message_bytes() const { return max_message_bytes_; }

 private:
  explicit ConfirmedProducer(int64_t timeout_ms) : timeout_ms_(timeout_ms) {}
  KafkaHandle rk_;
  int64_t timeout_ms_;
  size_t max_message_bytes_ = 1'000'000;  // the client's message.max.bytes, read at Open
};

}  // namespace idem::kafka
