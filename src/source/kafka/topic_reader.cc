#include "source/kafka/topic_reader.h"

#include <map>

#include "source/kafka/client_config.h"

namespace idem::kafka {

Result<TopicReader> TopicReader::Open(const KafkaOptions& options, const std::string& bootstrap, bool create) {
  auto conf = BaseConfig(options, bootstrap);
  if (!conf.ok()) return conf.status();
  // The group id only lets it read the group's committed offsets; it never
  // subscribes, so it never joins the group.
  for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
           {"group.id", options.group},
           {"enable.auto.commit", "false"},
           {"enable.partition.eof", "false"},
           {"allow.auto.create.topics", create ? "true" : "false"}}) {
    Status s = SetConf(conf->get(), name, value);
    if (!s.ok()) return s;
  }
  auto rk = NewClient(RD_KAFKA_CONSUMER, std::move(*conf));
  if (!rk.ok()) return rk.status();
  TopicReader r;
  r.rk_ = std::move(*rk);
  r.timeout_ms_ = options.request_timeout_ms;
  return r;
}

Result<std::vector<PartitionRange>> TopicReader::Ranges(const std::string& topic) {
  const int timeout = static_cast<int>(timeout_ms_);
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk_.get(), topic.c_str(), nullptr);
  const rd_kafka_metadata_t* md = nullptr;
  rd_kafka_resp_err_t err = rd_kafka_metadata(rk_.get(), 0, rkt, &md, timeout);
  rd_kafka_topic_destroy(rkt);
  if (err) return KafkaError("reading the metadata of " + topic, err);
  std::vector<PartitionRange> out;
  if (md->topic_cnt == 1 && !md->topics[0].err) {
    for (int i = 0; i < md->topics[0].partition_cnt; ++i) {
      PartitionRange r;
      r.key = {topic, md->topics[0].partitions[i].id};
      out.push_back(r);
    }
  }
  rd_kafka_metadata_destroy(md);
  if (out.empty()) return out;
  PartitionList committed = NewPartitionList(static_cast<int>(out.size()));
  for (PartitionRange& r : out) {
    err = rd_kafka_query_watermark_offsets(rk_.get(), topic.c_str(), r.key.partition, &r.low, &r.high, timeout);
    if (err) return KafkaError("reading the offsets of " + topic, err);
    rd_kafka_topic_partition_list_add(committed.get(), topic.c_str(), r.key.partition);
  }
  err = rd_kafka_committed(rk_.get(), committed.get(), timeout);
  if (err) return KafkaError("reading the committed offsets of " + topic, err);
  for (int i = 0; i < committed->cnt; ++i)
    if (!committed->elems[i].err && committed->elems[i].offset >= 0) out[i].committed = committed->elems[i].offset;
  return out;
}

Status TopicReader::ReadAll(const std::string& topic, const std::function<void(const rd_kafka_message_t*)>& visit) {
  auto ranges = Ranges(topic);
  if (!ranges.ok()) return ranges.status();
  PartitionList assign = NewPartitionList(static_cast<int>(ranges->size()));
  std::map<int32_t, int64_t> last;  // partition → the last offset to read
  for (const PartitionRange& r : *ranges) {
    if (r.high <= r.low) continue;
    rd_kafka_topic_partition_list_add(assign.get(), topic.c_str(), r.key.partition)->offset = r.low;
    last[r.key.partition] = r.high - 1;
  }
  if (last.empty()) return Status::OK();
  rd_kafka_resp_err_t err = rd_kafka_assign(rk_.get(), assign.get());
  if (err) return KafkaError("reading " + topic, err);
  int64_t waited_ms = 0;
  Status result;
  while (!last.empty()) {
    MessageHandle m(rd_kafka_consumer_poll(rk_.get(), 100));
    if (!m) {
      // A liveness bound: the records exist (below the high watermark), so only
      // an unreachable cluster keeps them away this long.
      if ((waited_ms += 100) > timeout_ms_) {
        result = Status::Unavailable("Kafka: reading " + topic + " timed out; try again");
        break;
      }
      continue;
    }
    if (m->err) continue;
    auto it = last.find(m->partition);
    if (it == last.end() || m->offset > it->second) continue;
    visit(m.get());
    if (m->offset >= it->second) last.erase(it);
  }
  rd_kafka_assign(rk_.get(), nullptr);
  return result;
}

}  // namespace idem::kafka
