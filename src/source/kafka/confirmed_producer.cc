#include "source/kafka/confirmed_producer.h"

#include <cstdlib>

#include "core/bounded_text.h"
#include "source/kafka/client_config.h"
#include "source/kafka/record_fit.h"

namespace idem::kafka {
namespace {

// One record's delivery report. Delivery reports are served on the thread that
// calls rd_kafka_flush/poll (this producer's caller), so no locking; a slot whose
// caller gave up waiting is freed by the report when it finally comes.
struct Slot {
  bool done = false;
  bool orphaned = false;
  rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR_NO_ERROR;
  int32_t partition = -1;
  int64_t offset = -1;
  int64_t timestamp_ms = 0;
};

void OnDelivery(rd_kafka_t*, const rd_kafka_message_t* m, void*) {
  auto* slot = static_cast<Slot*>(m->_private);
  if (!slot) return;
  if (slot->orphaned) {
    delete slot;
    return;
  }
  slot->done = true;
  slot->err = m->err;
  slot->partition = m->partition;
  slot->offset = m->offset;
  slot->timestamp_ms = rd_kafka_message_timestamp(m, nullptr);
}

}  // namespace

Result<std::unique_ptr<ConfirmedProducer>> ConfirmedProducer::Open(const KafkaOptions& options,
                                                                    const std::string& bootstrap) {
  auto conf = BaseConfig(options, bootstrap);
  if (!conf.ok()) return conf.status();
  // acks=all + idempotence: a confirmed record is on every in-sync replica, and
  // librdkafka's own resends never store a record twice.
  for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
           {"enable.idempotence", "true"},
           {"acks", "all"},
           {"message.timeout.ms", std::to_string(options.request_timeout_ms)},
           {"linger.ms", "1"},
           // Java clients hash keys with murmur2: the same key lands on the same partition.
           {"partitioner", "murmur2_random"}}) {
    Status s = SetConf(conf->get(), name, value);
    if (!s.ok()) return s;
  }
  rd_kafka_conf_set_dr_msg_cb(conf->get(), &OnDelivery);
  std::unique_ptr<ConfirmedProducer> p(new ConfirmedProducer(options.request_timeout_ms));
  auto rk = NewClient(RD_KAFKA_PRODUCER, std::move(*conf));
  if (!rk.ok()) return rk.status();
  p->rk_ = std::move(*rk);
  char value[32];
  size_t size = sizeof value;
  if (rd_kafka_conf_get(rd_kafka_conf(p->rk_.get()), "message.max.bytes", value, &size) == RD_KAFKA_CONF_OK)
    p->max_message_bytes_ = std::strtoull(value, nullptr, 10);
  return p;
}

ConfirmedProducer::~ConfirmedProducer() {
  if (rk_) rd_kafka_flush(rk_.get(), static_cast<int>(timeout_ms_));
}

Status ConfirmedProducer::CheckProducible(const OutRecord& r) const {
  const size_t bytes = RecordWireSize(r);  // as record_fit.h counts it for the copies idem makes
  if (bytes <= max_message_bytes_) return Status::OK();
  return Status::InvalidArgument("Kafka: a record for " + BoundedQuote(r.topic) + " would take " +
                                 GroupedCount(bytes) + " bytes (payload " +
                                 GroupedCount(r.value.size()) + ", key and headers with their framing), over " +
                                 "message.max.bytes = " + GroupedCount(max_message_bytes_) +
                                 ": make the message smaller, or raise message.max.bytes on the client and the "
                                 "topic's max.message.bytes on the cluster");
}

Status ConfirmedProducer::ProduceAll(std::vector<OutRecord>& records) {
  // Everything first: a record that can never be produced fails the batch
  // before any of it is on its way, so nothing of it is stored twice or half.
  for (size_t i = 0; i < records.size(); ++i)
    if (Status s = CheckProducible(records[i]); !s.ok())
      return Status::InvalidArgument("record " + std::to_string(i + 1) + " of " + std::to_string(records.size()) +
                                     " (nothing of this batch was sent): " + s.message());
  std::vector<Slot*> slots;
  slots.reserve(records.size());
  Status first_error;
  for (OutRecord& r : records) {
    if (!first_error.ok()) {
      slots.push_back(nullptr);  // in order: nothing after a refused record goes out
      continue;
    }
    rd_kafka_headers_t* headers = rd_kafka_headers_new(r.headers.size());
    for (const auto& [name, value] : r.headers)
      rd_kafka_header_add(headers, name.data(), static_cast<ssize_t>(name.size()), value.data(),
                          static_cast<ssize_t>(value.size()));
    auto* slot = new Slot;
    rd_kafka_resp_err_t err = rd_kafka_producev(
        rk_.get(), RD_KAFKA_V_TOPIC(r.topic.c_str()), RD_KAFKA_V_PARTITION(r.partition),
        RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
        RD_KAFKA_V_KEY(r.has_key ? r.key.data() : nullptr, r.has_key ? r.key.size() : 0),
        RD_KAFKA_V_VALUE(const_cast<char*>(r.value.data()), r.value.size()), RD_KAFKA_V_HEADERS(headers),
        RD_KAFKA_V_OPAQUE(slot), RD_KAFKA_V_END);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      rd_kafka_headers_destroy(headers);  // not taken on failure
      delete slot;
      slots.push_back(nullptr);
      Status refused = KafkaError("producing to " + r.topic, err);
      r.refused = !refused.IsRetryable();
      if (first_error.ok()) first_error = refused;
      continue;
    }
    slots.push_back(slot);
  }
  // flush serves the delivery reports; message.timeout.ms bounds each record,
  // so a report comes for every record within the timeout (plus slack).
  rd_kafka_flush(rk_.get(), static_cast<int>(timeout_ms_ + 5'000));
  for (size_t i = 0; i < records.size(); ++i) {
    Slot* slot = slots[i];
    if (!slot) continue;
    if (!slot->done) {
      slot->orphaned = true;
      if (first_error.ok())
        first_error = Status::Unavailable("Kafka: no delivery report for a record to " + records[i].topic +
                                          " within " + std::to_string(timeout_ms_) + " ms; it is retried");
      continue;
    }
    if (slot->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      Status refused = KafkaError("producing to " + records[i].topic, slot->err);
      records[i].refused = !refused.IsRetryable();
      if (first_error.ok()) first_error = refused;
    } else {
      records[i].stored_partition = slot->partition;
      records[i].stored_offset = slot->offset;
      records[i].stored_timestamp_ms = slot->timestamp_ms;
    }
    delete slot;
  }
  return first_error;
}

}  // namespace idem::kafka
