// Owning handles for librdkafka objects, and the conversion of its errors to Status.
#pragma once

#include <librdkafka/rdkafka.h>

#include <memory>
#include <string>

#include "idem/status.h"

namespace idem::kafka {

struct KafkaDeleter {
  void operator()(rd_kafka_t* rk) const { rd_kafka_destroy(rk); }
  void operator()(rd_kafka_conf_t* c) const { rd_kafka_conf_destroy(c); }
  void operator()(rd_kafka_message_t* m) const { rd_kafka_message_destroy(m); }
  void operator()(rd_kafka_topic_partition_list_t* l) const { rd_kafka_topic_partition_list_destroy(l); }
  void operator()(rd_kafka_headers_t* h) const { rd_kafka_headers_destroy(h); }
  void operator()(rd_kafka_error_t* e) const { rd_kafka_error_destroy(e); }
};
using KafkaHandle = std::unique_ptr<rd_kafka_t, KafkaDeleter>;
using ConfHandle = std::unique_ptr<rd_kafka_conf_t, KafkaDeleter>;
using MessageHandle = std::unique_ptr<rd_kafka_message_t, KafkaDeleter>;
using PartitionList = std::unique_ptr<rd_kafka_topic_partition_list_t, KafkaDeleter>;
using HeadersHandle = std::unique_ptr<rd_kafka_headers_t, KafkaDeleter>;
using ErrorHandle = std::unique_ptr<rd_kafka_error_t, KafkaDeleter>;

inline PartitionList NewPartitionList(int size = 1) { return PartitionList(rd_kafka_topic_partition_list_new(size)); }

// `what` failed with `err`: transport and timeout errors are Unavailable (retry
// later), the rest Permanent.
inline Status KafkaError(const std::string& what, rd_kafka_resp_err_t err) {
  std::string m = "Kafka: " + what + ": " + rd_kafka_err2str(err);
  switch (err) {
    case RD_KAFKA_RESP_ERR__TRANSPORT:
    case RD_KAFKA_RESP_ERR__TIMED_OUT:
    case RD_KAFKA_RESP_ERR__MSG_TIMED_OUT:
    case RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT:
    case RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN:
    case RD_KAFKA_RESP_ERR_NOT_COORDINATOR:
    case RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS:
    case RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION:
    case RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS:
    case RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND:
    case RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS:
    case RD_KAFKA_RESP_ERR__QUEUE_FULL:
    case RD_KAFKA_RESP_ERR__TIMED_OUT_QUEUE:
    case RD_KAFKA_RESP_ERR__RESOLVE:
    case RD_KAFKA_RESP_ERR_NETWORK_EXCEPTION:
    case RD_KAFKA_RESP_ERR_KAFKA_STORAGE_ERROR:
      return Status::Unavailable(m + " (the cluster is unreachable or busy; it is retried)");
    // Refusals of the record itself: the same record is refused again.
    case RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE:
    case RD_KAFKA_RESP_ERR_INVALID_MSG_SIZE:
    case RD_KAFKA_RESP_ERR_RECORD_LIST_TOO_LARGE:
      return Status::Permanent(m + " (the record is over message.max.bytes or the topic's max.message.bytes: "
                                   "make it smaller or raise the limit; retrying cannot help)");
    case RD_KAFKA_RESP_ERR_TOPIC_EXCEPTION:
    case RD_KAFKA_RESP_ERR__INVALID_ARG:
    case RD_KAFKA_RESP_ERR_INVALID_RECORD:
      return Status::Permanent(m + " (the cluster refuses this record or topic name; retrying cannot help)");
    default:
      return Status::Permanent(m);
  }
}

}  // namespace idem::kafka
