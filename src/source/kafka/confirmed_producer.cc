#include "source/kafka/confirmed_producer.h"

#include <cstdlib>

#include "source/kafka/client_config.h"

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

Status ConfirmedProducer::ProduceAll(std::vector<OutRecord>& records) {
  std::vector<Slot*> slots;
  slots.reserve(records.size());
  Status first_error;
  for (OutRecord& r : records) {
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
