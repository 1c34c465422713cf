// GroupConsumer: one member of a Kafka consumer group, consuming with
// rd_kafka_consumer_poll only, committing only settled offsets.
//
// It owns the bookkeeping of every partition it holds (PartitionOffsets, one
// generation per assignment), the rebalance callback (eager and cooperative),
// the commit timer, and the pause/resume of retry-topic partitions whose head
// record is not due yet. Every call runs on the caller's thread: librdkafka
// serves the rebalance callback inside rd_kafka_consumer_poll.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "idem/env.h"
#include "idem/kafka.h"
#include "source/kafka/member_slot.h"
#include "source/kafka/partition_offsets.h"
#include "source/kafka/rdkafka_handles.h"

namespace idem::kafka {

struct PartitionKey {
  std::string topic;
  int32_t partition = 0;
  bool operator<(const PartitionKey& o) const {
    return topic != o.topic ? topic < o.topic : partition < o.partition;
  }
};

struct FetchedRecord {
  MessageHandle record;
  int64_t generation = 0;
  bool redelivered = false;
  int delivery_count = 1;
};

// What outlives one GroupConsumer of a broker (Abandon closes it and
// the next Poll opens another): generations stay unique, so a receipt of the
// old member is stale for the new one, and the offsets handed out are
// remembered, so copies that come back are marked as redelivered.
struct MemberHistory {
  int64_t next_generation = 1;
  std::map<PartitionKey, int64_t> delivered_up_to;
};

class GroupConsumer {
 public:
  // `topics`: every topic to subscribe to (main and retry topics). `history`
  // must outlive the consumer.
  static Result<std::unique_ptr<GroupConsumer>> Open(const KafkaOptions& options, const std::string& bootstrap,
                                                     std::vector<std::string> topics, MemberHistory* history,
                                                     Env* env);
  // Commits what is settled and leaves the group.
  ~GroupConsumer();

  // Up to `max` records, waiting at most `max_wait_ms` for the first.
  Result<std::vector<FetchedRecord>> Poll(size_t max, int64_t max_wait_ms);

  // Whether `generation` is still the one of the partition (held, not abandoned).
  bool IsCurrent(const PartitionKey& p, int64_t generation) const;
  // Marks a record settled; false (and nothing happens) if its generation is stale.
  bool Settle(const PartitionKey& p, int64_t offset, int64_t generation);
  // Records that a released record is handed out again (REQUIRES: IsCurrent).
  PartitionOffsets::Delivery Redeliver(const PartitionKey& p, int64_t offset) { return held_.at(p).Fetched(offset); }
  // Gives back everything handed out and not settled without leaving the group
  // (what a static member's restart amounts to): every held partition gets a
  // new generation and is read again from its lowest unsettled offset.
  void Rewind();
  // Commits the settled offsets if commit_interval_ms passed since the last commit.
  void CommitIfDue();
  // Commits the settled offsets of every held partition now. Nothing to commit
  // is not an error; a failed commit is retried by the next one.
  Status CommitNow();

  // Ordered retries (key_holds.h): `flow` false pauses fetching from `p` — too
  // many of its records wait behind held keys — so that nothing more of it is
  // fetched until `flow` is true again; fetching then goes on after the highest
  // record this member took. Does nothing for a partition it does not hold.
  void SetFetching(const PartitionKey& p, bool flow);
  const std::set<PartitionKey>& held_back() const { return held_back_; }
  // Partitions assigned to this member now (main and retry topics).
  size_t held_partitions() const { return held_.size(); }

  int64_t commit_failures() const { return commit_failures_; }
  // group.instance.id, empty for a dynamic member.
  std::string instance_id() const { return slot_ ? slot_->id() : ""; }

 private:
  GroupConsumer(const KafkaOptions& options, MemberHistory* history, Env* env)
      : options_(options), history_(history), env_(env) {}
  void Forget(const PartitionKey& k);
  static void OnRebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* parts,
                          void* opaque);
  void Assign(rd_kafka_topic_partition_list_t* parts);
  void Revoke(rd_kafka_topic_partition_list_t* parts);
  Status Commit(const std::vector<PartitionKey>& which);
  Status Subscribe();
  void ResumeDue();
  void PauseUntil(const rd_kafka_message_t* record, int64_t due_ms);
  int64_t NextResumeMs() const;

  KafkaOptions options_;
  MemberHistory* history_;
  Env* env_;
  std::optional<MemberSlot> slot_;  // a static member's id, held until the client is gone
  KafkaHandle rk_;
  std::vector<std::string> topics_;
  bool subscribed_ = false;
  bool cooperative_ = false;
  int64_t last_commit_ms_ = 0;
  int64_t commit_failures_ = 0;
  int64_t failed_run_start_ = 0;  // commit_failures_ at the last successful commit
  std::map<PartitionKey, PartitionOffsets> held_;
  std::map<PartitionKey, int64_t> paused_until_;  // retry-topic partitions waiting for their head record
  std::set<PartitionKey> held_back_;              // paused by SetFetching(…, false)
};

}  // namespace idem::kafka
