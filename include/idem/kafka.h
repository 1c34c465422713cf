// The Kafka broker adapter, built on librdkafka (a consumer group member that
// commits offsets only after the pipeline knows each message's fate).
// User guide: docs/brokers.md, section "Kafka".
//
// URL:  kafka://HOST:PORT[,HOST:PORT…]/TOPIC[,TOPIC…]?group=G&name=value&…
//       kafka://mock/TOPIC[,TOPIC…]?…   librdkafka's in-process mock cluster, started
//                                       on first use and shared by every kafka://mock
//                                       URL of the process (no server needed; it
//                                       vanishes with the process)
// Every KafkaOptions field below with a URL name can be given as a query
// parameter; "rdkafka.NAME=VALUE" passes NAME=VALUE to librdkafka unchanged.
// Unknown parameters are an error.
//
// Topics, per consumed topic T (Spring Kafka's names):
//   T                 the main topic; PublishBatch writes here (a Message::topic
//                     that is not one of the URL's topics travels in the
//                     idem-topic header of the first URL topic)
//   T-retry-<ms>      one per retry delay rung (retry_delays_ms): in retry_topics
//                     mode a kRetry goes to the smallest rung at least as long as
//                     its delay (else the longest) with its due time in
//                     retry_topic-backoff-timestamp;
//                     the consumer pauses the partition until the head record is
//                     due (pause/resume, never a sleep). A delayed PublishBatch
//                     goes the same way without counting an attempt.
//   T-dlt             the dead-letter topic: headers kafka_dlt-original-topic,
//                     -partition, -offset, -timestamp, -consumer-group,
//                     kafka_dlt-exception-message (the reason), retry_topic-attempts,
//                     idem-first-failed-ms, idem-last-failed-ms. All values are
//                     decimal text.
//
// Retry modes (retry_mode=):
//   ordered            a kRetry stays in place: its offset stays unsettled and
//                      this member hands it out again after the Settlement's delay
//                      (the pipeline's retry ladder); until it is settled for good
//                      (applied, or dead-lettered once its attempts run out) the
//                      later records of its key in that partition wait behind it,
//                      while the other keys of the partition flow. One record per
//                      key is handed out at a time. A record without a key is
//                      never held and holds nothing. Once `max_waiting` records
//                      of a partition wait behind held keys, its fetching pauses
//                      until half of them went out. The default.
//   retry_topics       a kRetry moves to T-retry-<ms> (above) and is settled;
//                      later records of its key overtake it (for producers that
//                      do not keep a key's order).
//
// Offsets: enable.auto.commit and enable.auto.offset.store are off. Per
// partition, the offset after the highest contiguous settled message is
// committed every commit_interval_ms, when partitions are revoked and at close —
// never past an unsettled message. A kRetry or kPark settles its message only
// once the copy's delivery report (acks=all, idempotent producer) confirmed it.
// Rebalances: eager (range, roundrobin) or cooperative-sticky (the default:
// only the partitions that move are revoked, the others are consumed on through
// the rebalance). Members are static by default (static_membership). On
// revocation what is settled is committed, then the partitions go; when the
// assignment is lost nothing is committed. Each assignment has a generation,
// carried in every receipt: a late Settle of a message whose partition moved (or
// was abandoned) is ignored, so it never commits over the new owner's progress.
// Source::Abandon gives back every unsettled message. A static member keeps its
// partitions and reads them again from the lowest unsettled offset (what its
// restart under the same group.instance.id amounts to: no rebalance). A dynamic
// member leaves the group (committing only what is settled), so its partitions
// move to the other members; the next Poll rejoins.
//
// Limits: a log cannot delete one record. Replay appends a marker to the
// dead-letter topic that hides the replayed entry from the console; Purge is
// NotSupported (the bytes stay until the topic's retention removes them). Stats
// counts lag from the group's committed offsets; in_flight is unknown (-1).
//
// Thread safety: one broker per thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "idem/broker.h"
#include "idem/env.h"
#include "idem/status.h"

namespace idem {

struct KafkaOptions {
  std::string bootstrap_servers;  // "host:port,host:port"; empty when mock is set
  bool mock = false;              // kafka://mock: the process's in-process mock cluster
  std::vector<std::string> topics;  // the URL path; at least one

  std::string group = "idem";                     // group=: consumer group id; default "idem"
  std::string assignor = "cooperative-sticky";    // assignor=: cooperative-sticky, range or roundrobin
  // static_membership=: join as a static member (group.instance.id, KIP-345), so
  // that a member restarted within session_timeout_ms gets its partitions back
  // without a rebalance of the group; default true. The id is "<instance_id>-<N>",
  // N the lowest member slot of the group free on this host (docs/brokers.md).
  bool static_membership = true;
  std::string instance_id;                        // instance_id=: prefix of the id; default this host's name
  int64_t session_timeout_ms = 45'000;            // session_timeout_ms=; default 45 s
  int64_t max_poll_interval_ms = 300'000;         // max_poll_interval_ms=; default 5 min
  int64_t commit_interval_ms = 1'000;             // commit_interval_ms=: settled offsets committed this often; default 1 s
  int64_t request_timeout_ms = 30'000;            // request_timeout_ms=: produce confirms, commits, metadata; default 30 s
  // prefetch=: messages librdkafka fetches ahead per partition (with ordered
  // retries at least max_waiting). Default 100 for these options as given;
  // through a URL (OpenBroker), the URL's prefetch= or else
  // BrokerOptions::prefetch (default 300) replaces it.
  size_t prefetch = 100;
  std::vector<int64_t> retry_delays_ms{30'000, 60'000, 300'000};  // retry_delays_ms=: the retry topic rungs
  // retry_mode=ordered|retry_topics; default ordered (see "Retry modes" above).
  RetryMode retry_mode = RetryMode::kOrdered;
  // max_waiting=: ordered mode, the records of one partition kept in memory
  // behind held keys before its fetching pauses; default 1000. Not tied to
  // prefetch: a few batches fill with records behind keys that are merely in
  // the current batch, and a pause that held keys alone keep up stops the very
  // records of other keys they wait for (a charge's top-up) until their attempts run out.
  size_t max_waiting = 1'000;
  std::map<std::string, std::string> rdkafka;     // rdkafka.NAME=VALUE pass-through
  // false: create nothing and fail with NotFound when a main topic is missing
  // (for inspecting). Set from BrokerOptions::create_if_missing; not a URL parameter.
  bool create_if_missing = true;
};

// Parses a kafka:// URL (see the top of this file).
Result<KafkaOptions> ParseKafkaUrl(const std::string& url);

Result<std::unique_ptr<Broker>> OpenKafkaBroker(const KafkaOptions& options, Env* env);

// How many partitions (main and retry topics) `broker`, opened by
// OpenKafkaBroker, holds as a member of its group now: 0 until a Poll has
// joined the group and the group has assigned it some. Lets a caller wait,
// before it publishes, until every member of a new group has its share.
Result<size_t> KafkaHeldPartitions(Broker& broker);
// OpenBroker's entry point for kafka:// URLs. BrokerOptions::prefetch applies
// unless the URL sets prefetch=; BrokerOptions::topics, when given, replaces the
// URL's topics.
Result<std::unique_ptr<Broker>> OpenKafkaBroker(const std::string& url, const BrokerOptions& broker_options,
                                                Env* env);

// One partition of a topic the group consumes (main and retry topics) or its
// dead-letter topic, with the group's lag: what is stored past its committed
// offset (everything stored when it has committed nothing).
struct KafkaPartitionLag {
  std::string topic;
  int32_t partition = 0;
  int64_t low = 0;         // first offset still stored
  int64_t high = 0;        // offset of the next record
  int64_t committed = -1;  // the group's committed offset, -1 if none
  int64_t lag = 0;
};
// For `idem queue stats`: every partition of the URL's topics, their retry
// topics and dead-letter topics, in that order. Creates nothing.
Result<std::vector<KafkaPartitionLag>> KafkaLag(const std::string& url);

// The bootstrap servers of the process's shared mock cluster (kafka://mock),
// starting it on first use.
Result<std::string> KafkaMockBootstrapServers();

}  // namespace idem
