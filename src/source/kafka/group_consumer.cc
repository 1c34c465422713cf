#include "source/kafka/group_consumer.h"

#include "idem/backend_log.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>

#include "source/kafka/client_config.h"
#include "source/kafka/member_slot.h"
#include "source/kafka/record_codec.h"

namespace idem::kafka {
namespace {

// The commit metadata: the offset after the highest one this member handed out,
// so the next owner marks copies below it as redelivered.
constexpr char kDeliveredPrefix[] = "idem-delivered=";

int64_t DeliveredFromMetadata(const rd_kafka_topic_partition_t& tp) {
  const size_t n = std::strlen(kDeliveredPrefix);
  if (!tp.metadata || tp.metadata_size <= n) return -1;
  const char* s = static_cast<const char*>(tp.metadata);
  if (std::memcmp(s, kDeliveredPrefix, n) != 0) return -1;
  int64_t v = -1;
  auto [p, ec] = std::from_chars(s + n, s + tp.metadata_size, v);
  return ec == std::errc() ? v : -1;
}

PartitionList ListOf(const std::vector<std::pair<PartitionKey, int64_t>>& offsets) {
  PartitionList list = NewPartitionList(static_cast<int>(offsets.size()));
  for (const auto& [p, offset] : offsets)
    rd_kafka_topic_partition_list_add(list.get(), p.topic.c_str(), p.partition)->offset = offset;
  return list;
}

// Through the process's backend log (the service's JSON log), never straight to stderr.
void Warn(std::string_view event, const std::string& what) {
  BackendLog(BackendLogLevel::kWarn, "kafka", event, what);
}

// "topic[0,2] other[1]": the partitions of a rebalance, for the log.
std::string PartitionsText(const rd_kafka_topic_partition_list_t* parts) {
  std::map<std::string, std::string> by_topic;
  for (int i = 0; i < parts->cnt; ++i) {
    std::string& list = by_topic[parts->elems[i].topic];
    list += (list.empty() ? "" : ",") + std::to_string(parts->elems[i].partition);
  }
  std::string text;
  for (const auto& [topic, list] : by_topic) text += (text.empty() ? "" : " ") + topic + "[" + list + "]";
  return text;
}

// Records librdkafka fetches ahead per partition: `prefetch`, and with ordered
// retries as many as the member may keep waiting behind held keys. A held
// record keeps the committed offset behind it, so a restart or a new owner
// reads the partition again from there, mostly records settled already, which
// are skipped; fetched `prefetch` at a time, that re-read crawls (each refill is
// a fetch round trip) while the held records' retries run on, and a charge can
// run out of attempts before its top-up, further on, is reached again.
size_t FetchAhead(const KafkaOptions& o) {
  return o.retry_mode == RetryMode::kOrdered ? std::max(o.prefetch, o.max_waiting) : o.prefetch;
}

}  // namespace

Result<std::unique_ptr<GroupConsumer>> GroupConsumer::Open(const KafkaOptions& options, const std::string& bootstrap,
                                                           std::vector<std::string> topics, MemberHistory* history,
                                                           Env* env) {
  auto conf = BaseConfig(options, bootstrap);
  if (!conf.ok()) return conf.status();
  const std::string assignor = options.assignor == "cooperative-sticky" ? "cooperative-sticky" : options.assignor;
  for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
           {"group.id", options.group},
           {"partition.assignment.strategy", assignor},
           {"session.timeout.ms", std::to_string(options.session_timeout_ms)},
           {"max.poll.interval.ms", std::to_string(options.max_poll_interval_ms)},
           // Offsets are idem's to commit, and only once settled.
           {"enable.auto.commit", "false"},
           {"enable.auto.offset.store", "false"},
           {"auto.offset.reset", "earliest"},
           // Bounded fetch: librdkafka keeps at most about FetchAhead(options) records per partition ahead.
           {"queued.min.messages", std::to_string(FetchAhead(options))},
           {"enable.partition.eof", "false"}}) {
    Status s = SetConf(conf->get(), name, value);
    if (!s.ok()) return s;
  }
  // librdkafka's heartbeat default (3 s) is for its default session (45 s):
  // a heartbeat must come several times a session, or a short session times out.
  if (!options.rdkafka.count("heartbeat.interval.ms")) {
    Status s = SetConf(conf->get(), "heartbeat.interval.ms",
                       std::to_string(std::clamp<int64_t>(options.session_timeout_ms / 3, 1, 3'000)));
    if (!s.ok()) return s;
  }
  std::unique_ptr<GroupConsumer> c(new GroupConsumer(options, history, env));
  if (options.static_membership) {
    auto slot = MemberSlot::Take(options.instance_id.empty() ? HostName() : options.instance_id, options.group,
                                 DefaultSlotDir());
    if (!slot.ok()) return slot.status();
    Status s = SetConf(conf->get(), "group.instance.id", slot->id());
    if (!s.ok()) return s;
    c->slot_ = std::move(*slot);
  }
  rd_kafka_conf_set_opaque(conf->get(), c.get());
  rd_kafka_conf_set_rebalance_cb(conf->get(), &GroupConsumer::OnRebalance);
  auto rk = NewClient(RD_KAFKA_CONSUMER, std::move(*conf));
  if (!rk.ok()) return rk.status();
  c->rk_ = std::move(*rk);
  rd_kafka_poll_set_consumer(c->rk_.get());
  c->topics_ = std::move(topics);
  c->last_commit_ms_ = env->NowMs();
  return c;
}

GroupConsumer::~GroupConsumer() {
  if (!rk_) return;
  if (subscribed_) {
    Status s = CommitNow();
    if (!s.ok()) Warn("kafka_close_commit_failed", s.ToString());
    // Runs the revoke callback (which commits again what is settled) and leaves the group.
    rd_kafka_consumer_close(rk_.get());
  }
  std::vector<PartitionKey> left;
  for (const auto& [k, _] : held_) left.push_back(k);
  for (const PartitionKey& k : left) Forget(k);
}

Status GroupConsumer::Subscribe() {
  PartitionList list = NewPartitionList(static_cast<int>(topics_.size()));
  for (const std::string& t : topics_)
    rd_kafka_topic_partition_list_add(list.get(), t.c_str(), RD_KAFKA_PARTITION_UA);
  rd_kafka_resp_err_t err = rd_kafka_subscribe(rk_.get(), list.get());
  if (err) return KafkaError("subscribing to the topics of group " + options_.group, err);
  subscribed_ = true;
  return Status::OK();
}

void GroupConsumer::OnRebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* parts,
                                void* opaque) {
  auto* self = static_cast<GroupConsumer*>(opaque);
  self->cooperative_ = std::strcmp(rd_kafka_rebalance_protocol(rk), "COOPERATIVE") == 0;
  // Which member gained or gave up what: how an operator tells a restart that
  // kept the assignments from one that moved the whole group's partitions.
  const char* what = err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS ? "kafka_partitions_assigned"
                     : rd_kafka_assignment_lost(rk)             ? "kafka_partitions_lost"
                                                                : "kafka_partitions_revoked";
  const std::string instance = self->instance_id();
  const std::string partitions = PartitionsText(parts);
  std::string member;
  if (char* id = rd_kafka_memberid(rk)) {
    member = id;
    rd_kafka_mem_free(rk, id);
  }
  BackendLog(BackendLogLevel::kInfo, "kafka", what, std::to_string(parts->cnt) + " partition(s) of group " + self->options_.group,
             {{"group", self->options_.group},
              {"member", member},
              {"instance", instance},
              {"protocol", self->cooperative_ ? "cooperative" : "eager"},
              {"partitions", partitions},
              {"client", rd_kafka_name(rk)}});
  if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) self->Assign(parts);
  else self->Revoke(parts);
}

void GroupConsumer::Assign(rd_kafka_topic_partition_list_t* parts) {
  // What the previous owner committed tells which offsets it had handed out.
  PartitionList committed(rd_kafka_topic_partition_list_copy(parts));
  rd_kafka_resp_err_t err = rd_kafka_committed(rk_.get(), committed.get(), static_cast<int>(options_.request_timeout_ms));
  for (int i = 0; i < parts->cnt; ++i) {
    const rd_kafka_topic_partition_t& tp = parts->elems[i];
    int64_t delivered_before = -1;
    if (!err) {
      const rd_kafka_topic_partition_t* c =
          rd_kafka_topic_partition_list_find(committed.get(), tp.topic, tp.partition);
      if (c && !c->err) delivered_before = DeliveredFromMetadata(*c);
    }
    PartitionKey key{tp.topic, tp.partition};
    auto remembered = history_->delivered_up_to.find(key);
    if (remembered != history_->delivered_up_to.end() && remembered->second > delivered_before)
      delivered_before = remembered->second;
    held_.erase(key);
    held_.emplace(key, PartitionOffsets(history_->next_generation++, delivered_before));
    paused_until_.erase(key);
    held_back_.erase(key);
  }
  // Pause state survives reassignment in librdkafka: a partition this member
  // paused before it lost it would stay paused.
  rd_kafka_resume_partitions(rk_.get(), parts);
  if (cooperative_) {
    ErrorHandle e(rd_kafka_incremental_assign(rk_.get(), parts));
    if (e) Warn("kafka_assign_failed", rd_kafka_error_string(e.get()));
  } else {
    rd_kafka_assign(rk_.get(), parts);
  }
}

void GroupConsumer::Revoke(rd_kafka_topic_partition_list_t* parts) {
  std::vector<PartitionKey> keys;
  for (int i = 0; i < parts->cnt; ++i) keys.push_back({parts->elems[i].topic, parts->elems[i].partition});
  // Lost (session timed out, fenced): another member may already hold these
  // partitions and have committed past us; committing now could move its
  // offset backwards or skip its work. Drop everything instead.
  if (!rd_kafka_assignment_lost(rk_.get())) {
    Status s = Commit(keys);
    // On the mock cluster an eager revoke commit gets REBALANCE_IN_PROGRESS; the
    // next owner then gets copies, which the guard absorbs.
    if (!s.ok()) Warn("kafka_revoke_commit_failed", s.ToString());
  }
  for (const PartitionKey& k : keys) Forget(k);
  rd_kafka_resume_partitions(rk_.get(), parts);
  if (cooperative_) {
    ErrorHandle e(rd_kafka_incremental_unassign(rk_.get(), parts));
    if (e) Warn("kafka_unassign_failed", rd_kafka_error_string(e.get()));
  } else {
    rd_kafka_assign(rk_.get(), nullptr);
  }
}

void GroupConsumer::Forget(const PartitionKey& k) {
  auto it = held_.find(k);
  if (it != held_.end()) {
    int64_t& up_to = history_->delivered_up_to[k];
    if (it->second.DeliveredUpTo() > up_to) up_to = it->second.DeliveredUpTo();
    held_.erase(it);
  }
  paused_until_.erase(k);
  held_back_.erase(k);
}

Status GroupConsumer::Commit(const std::vector<PartitionKey>& which) {
  PartitionList list = NewPartitionList(static_cast<int>(which.size()));
  std::vector<std::string> metadata;
  metadata.reserve(which.size());
  for (const PartitionKey& k : which) {
    auto it = held_.find(k);
    if (it == held_.end() || it->second.CommitPoint() < 0) continue;
    rd_kafka_topic_partition_t* tp = rd_kafka_topic_partition_list_add(list.get(), k.topic.c_str(), k.partition);
    tp->offset = it->second.CommitPoint();
    metadata.push_back(kDeliveredPrefix + std::to_string(it->second.DeliveredUpTo()));
    tp->metadata = strdup(metadata.back().c_str());  // freed with the list
    tp->metadata_size = metadata.back().size();
  }
  if (list->cnt == 0) return Status::OK();
  rd_kafka_resp_err_t err = rd_kafka_commit(rk_.get(), list.get(), 0);
  if (err == RD_KAFKA_RESP_ERR__NO_OFFSET) return Status::OK();
  Status result;
  if (err) {
    ++commit_failures_;
    return KafkaError("committing offsets", err);
  }
  for (int i = 0; i < list->cnt; ++i) {
    const rd_kafka_topic_partition_t& tp = list->elems[i];
    auto it = held_.find({tp.topic, tp.partition});
    if (tp.err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      if (it != held_.end()) it->second.Committed(tp.offset);
    } else if (tp.err != RD_KAFKA_RESP_ERR__NO_OFFSET && tp.err != RD_KAFKA_RESP_ERR__STATE) {
      ++commit_failures_;
      if (result.ok()) result = KafkaError("committing the offset of " + std::string(tp.topic), tp.err);
    }
  }
  return result;
}

Status GroupConsumer::CommitNow() {
  last_commit_ms_ = env_->NowMs();
  std::vector<PartitionKey> all;
  for (const auto& [k, _] : held_) all.push_back(k);
  return Commit(all);
}

void GroupConsumer::CommitIfDue() {
  if (env_->NowMs() - last_commit_ms_ < options_.commit_interval_ms) return;
  const int64_t failures_before = commit_failures_;
  Status s = CommitNow();
  // One line per run of failures (a rebalance or an outage fails every try).
  if (!s.ok() && failures_before == failed_run_start_) Warn("kafka_commit_failed", s.ToString() + "; later commits retry");
  if (s.ok()) failed_run_start_ = commit_failures_;
}

bool GroupConsumer::IsCurrent(const PartitionKey& p, int64_t generation) const {
  auto it = held_.find(p);
  return it != held_.end() && it->second.generation() == generation;
}

bool GroupConsumer::Settle(const PartitionKey& p, int64_t offset, int64_t generation) {
  auto it = held_.find(p);
  if (it == held_.end() || it->second.generation() != generation) return false;
  it->second.Settled(offset);
  return true;
}

void GroupConsumer::PauseUntil(const rd_kafka_message_t* record, int64_t due_ms) {
  const PartitionKey key{rd_kafka_topic_name(record->rkt), record->partition};
  PartitionList list = ListOf({{key, record->offset}});
  rd_kafka_pause_partitions(rk_.get(), list.get());
  // Fetch it again once resumed: the records after it were fetched already and
  // are discarded with this seek.
  ErrorHandle e(rd_kafka_seek_partitions(rk_.get(), list.get(), static_cast<int>(options_.request_timeout_ms)));
  if (e) Warn("kafka_seek_failed", rd_kafka_error_string(e.get()));
  paused_until_[key] = due_ms;
}

void GroupConsumer::SetFetching(const PartitionKey& p, bool flow) {
  auto held = held_.find(p);
  const bool paused = held_back_.count(p) > 0;
  if (held == held_.end() || flow != paused) return;  // not ours, or already as asked
  if (flow) {
    held_back_.erase(p);
    if (!paused_until_.count(p)) rd_kafka_resume_partitions(rk_.get(), ListOf({{p, RD_KAFKA_OFFSET_INVALID}}).get());
    return;
  }
  held_back_.insert(p);
  PartitionList list = ListOf({{p, held->second.NextToFetch()}});
  rd_kafka_pause_partitions(rk_.get(), list.get());
  // What librdkafka fetched past the records taken is discarded (Poll skips
  // this partition meanwhile); fetch it again once resumed.
  ErrorHandle e(rd_kafka_seek_partitions(rk_.get(), list.get(), static_cast<int>(options_.request_timeout_ms)));
  if (e) Warn("kafka_seek_failed", rd_kafka_error_string(e.get()));
}

void GroupConsumer::Rewind() {
  // The ordered retries' holds are given up with the rest (KafkaBroker clears
  // them): a partition paused for them flows again.
  for (const PartitionKey& p : held_back_)
    if (held_.count(p) && !paused_until_.count(p))
      rd_kafka_resume_partitions(rk_.get(), ListOf({{p, RD_KAFKA_OFFSET_INVALID}}).get());
  held_back_.clear();
  std::vector<std::pair<PartitionKey, int64_t>> seeks;
  for (auto& [key, offsets] : held_) {
    offsets.Rewind(history_->next_generation++);
    if (offsets.LowestUnsettled() >= 0) seeks.emplace_back(key, offsets.LowestUnsettled());
  }
  if (seeks.empty()) return;
  // The records fetched after that offset are discarded with the seek and
  // fetched again; the settled ones among them are skipped (PartitionOffsets).
  ErrorHandle e(rd_kafka_seek_partitions(rk_.get(), ListOf(seeks).get(), static_cast<int>(options_.request_timeout_ms)));
  if (e) Warn("kafka_seek_failed", rd_kafka_error_string(e.get()));
}

void GroupConsumer::ResumeDue() {
  const int64_t now = env_->NowMs();
  std::vector<std::pair<PartitionKey, int64_t>> due;
  for (auto it = paused_until_.begin(); it != paused_until_.end();) {
    if (it->second <= now) {
      if (!held_back_.count(it->first)) due.emplace_back(it->first, RD_KAFKA_OFFSET_INVALID);
      it = paused_until_.erase(it);
    } else {
      ++it;
    }
  }
  if (!due.empty()) rd_kafka_resume_partitions(rk_.get(), ListOf(due).get());
}

int64_t GroupConsumer::NextResumeMs() const {
  int64_t next = -1;
  for (const auto& [_, at] : paused_until_)
    if (next < 0 || at < next) next = at;
  return next;
}

Result<std::vector<FetchedRecord>> GroupConsumer::Poll(size_t max, int64_t max_wait_ms) {
  if (!subscribed_) {
    Status s = Subscribe();
    if (!s.ok()) return s;
  }
  std::vector<FetchedRecord> out;
  const int64_t deadline = env_->NowMs() + max_wait_ms;
  while (out.size() < max) {
    ResumeDue();
    const int64_t now = env_->NowMs();
    int64_t wait = out.empty() ? deadline - now : 0;
    const int64_t resume = NextResumeMs();
    if (resume >= 0 && resume - now < wait) wait = resume - now;
    if (wait < 0) wait = 0;
    MessageHandle m(rd_kafka_consumer_poll(rk_.get(), static_cast<int>(wait)));
    if (!m) {
      if (!out.empty() || env_->NowMs() >= deadline) break;
      continue;
    }
    if (m->err) {
      char reason[512];
      if (rd_kafka_fatal_error(rk_.get(), reason, sizeof reason))
        return Status::Permanent(std::string("Kafka: the consumer failed for good: ") + reason);
      // Transport errors, unknown topics and the like are reported here and
      // retried by librdkafka itself.
      if (m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF) Warn("kafka_consume_error", rd_kafka_message_errstr(m.get()));
      continue;
    }
    const PartitionKey key{rd_kafka_topic_name(m->rkt), m->partition};
    auto held = held_.find(key);
    // Not ours any more, or waiting (for a retry topic's head record, or for held keys).
    if (held == held_.end() || paused_until_.count(key) || held_back_.count(key)) continue;
    std::string due_text;
    int64_t due = 0;
    if (RecordHeader(m.get(), header::kDueMs, &due_text) &&
        std::from_chars(due_text.data(), due_text.data() + due_text.size(), due).ec == std::errc() &&
        due > env_->NowMs()) {
      PauseUntil(m.get(), due);
      continue;
    }
    PartitionOffsets::Delivery d = held->second.Fetched(m->offset);
    if (d.skip) continue;
    FetchedRecord f;
    f.generation = held->second.generation();
    f.redelivered = d.redelivered;
    f.delivery_count = d.count;
    f.record = std::move(m);
    out.push_back(std::move(f));
  }
  CommitIfDue();
  return out;
}

}  // namespace idem::kafka
