// The Kafka adapter behind idem::Broker: the receipt format, settlement and
// the wiring of the parts (GroupConsumer, ConfirmedProducer, moves, console).
#include <algorithm>
#include <optional>
#include <set>

#include "core/bounded_text.h"
#include "core/reserved_headers.h"
#include "idem/kafka.h"
#include "idem/store_dead_letters.h"
#include "source/kafka/client_config.h"
#include "source/kafka/confirmed_producer.h"
#include "source/kafka/dead_letter_console.h"
#include "source/kafka/group_consumer.h"
#include "source/kafka/key_holds.h"
#include "source/kafka/moves.h"
#include "source/kafka/record_fit.h"
#include "source/kafka/record_codec.h"
#include "source/kafka/topic_reader.h"

namespace idem {
namespace kafka {
namespace {

// The receipt of a consumed record: Receipt::sequence is its offset,
// ::partition its partition, ::generation the assignment it was handed out in,
// and ::stream the index of its topic in ConsumedTopics() (a main topic or one
// of its retry topics).
PartitionKey KeyOf(const std::vector<std::string>& consumed, const Receipt& r) {
  return {consumed[static_cast<size_t>(r.stream)], r.partition};
}

// One object plays every part: a Kafka broker's consumer, producer and
// console share the options, the producer and the member history.
class KafkaBroker final : public Broker, public Source, public Publisher, public DeadLetters, public ParksInStore {
 public:
  KafkaBroker(KafkaOptions options, std::string bootstrap, std::unique_ptr<ConfirmedProducer> producer, Env* env)
      : options_(std::move(options)),
        bootstrap_(std::move(bootstrap)),
        producer_(std::move(producer)),
        console_(options_, bootstrap_, producer_.get(), env),
        env_(env),
        consumed_(ConsumedTopics()) {}

  Source& source() override { return *this; }
  Publisher& publisher() override { return *this; }
  DeadLetters* dead_letters() override { return this; }
  ParksInStore* parks_in_store() override { return this; }
  void SetStoreDeadLetters(StoreDeadLetterSink* sink) override { store_dead_letters_ = sink; }

  // A dead letter Kafka cannot take (record_fit.h, or refused for good), into
  // the store. OK once it is kept there: its offset may then be settled.
  Status ParkInStore(const Settlement& s, const std::string& why) {
    if (!store_dead_letters_)
      return Status::Permanent("Kafka: the dead-letter record cannot be produced (" + why +
                               ") and this consumer has no store to keep it in; it is handed out again "
                               "(consume through idem::Pipeline, which gives the source its store)");
    auto id = store_dead_letters_->Park(
        *s.message, BoundedReason(s.reason + " [kept in the store: the dead-letter record cannot go to Kafka: " + why + "]"),
        s.attempts);
    return id.ok() ? Status::OK() : id.status();
  }

  // The topics the group consumes: the main topics and their retry topics.
  std::vector<std::string> ConsumedTopics() const {
    std::vector<std::string> all;
    for (const std::string& t : options_.topics) {
      all.push_back(t);
      for (int64_t rung : options_.retry_delays_ms) all.push_back(RetryTopic(t, rung));
    }
    return all;
  }

  // Every topic this broker reads or writes; created on the cluster at open (by
  // a metadata request, which auto-creates them where the cluster allows it) so
  // the group subscribes to all of them from its first join.
  std::vector<std::string> AllTopics() const {
    std::vector<std::string> all = ConsumedTopics();
    for (const std::string& t : options_.topics) all.push_back(DeadLetterTopic(t));
    return all;
  }

  Status CheckTopics() {
    auto reader = TopicReader::Open(options_, bootstrap_, options_.create_if_missing);
    if (!reader.ok()) return reader.status();
    std::vector<std::string> missing;
    for (const std::string& t : options_.create_if_missing ? AllTopics() : options_.topics) {
      auto ranges = reader->Ranges(t);
      if (!ranges.ok()) return ranges.status();
      if (ranges->empty()) missing.push_back(t);
    }
    if (missing.empty()) return Status::OK();
    std::string list;
    for (const std::string& t : missing) list += (list.empty() ? "" : ", ") + t;
    if (!options_.create_if_missing)
      return Status::NotFound("Kafka: topic " + list + " does not exist on " + bootstrap_ +
                              " (check the topic names of the URL)");
    return Status::NotFound("Kafka: the cluster " + bootstrap_ + " did not create topic(s) " + list +
                            " (auto.create.topics.enable is off?): create them with kafka-topics.sh --create");
  }

  Result<std::vector<Message>> Poll(size_t max_messages, int64_t max_wait_ms) override {
    auto out = PollRecords(max_messages, max_wait_ms);
    if (out.ok())
      for (const Message& m : *out) handed_out_.insert(m.receipt);
    return out;
  }

  Result<std::vector<Message>> PollRecords(size_t max_messages, int64_t max_wait_ms) {
    std::vector<Message> out;
    if (max_messages == 0) return out;
    if (!consumer_) {
      auto c = GroupConsumer::Open(options_, bootstrap_, ConsumedTopics(), &history_, env_);
      if (!c.ok()) return c.status();
      consumer_ = std::move(*c);
    }
    if (ordered())
      holds_.DropStale([&](const Receipt& r) { return consumer_->IsCurrent(KeyOf(consumed_, r), r.generation); });
    TakeDueReleases(max_messages, out);
    if (ordered()) TakeFreedKeys(max_messages, out);
    if (out.size() >= max_messages) {
      if (ordered()) PaceFetching({});
      return out;
    }
    int64_t wait = out.empty() ? max_wait_ms : 0;
    const int64_t next_release = NextReleaseMs();
    if (next_release >= 0) wait = std::min(wait, std::max<int64_t>(0, next_release - env_->NowMs()));
    auto fetched = consumer_->Poll(max_messages - out.size(), wait);
    if (!fetched.ok()) return fetched.status();
    const int64_t now = env_->NowMs();
    std::set<PartitionKey> touched;
    for (FetchedRecord& f : *fetched) {
      const std::string topic = rd_kafka_topic_name(f.record->rkt);
      const size_t stream = ConsumedIndex(topic);
      Message m = ToMessage(f.record.get(), options_.topics[MainOf(stream)]);
      // A main-topic record is a producer's (a replay copy too: its grant is
      // in the store); only a retry topic's records are copies idem wrote.
      if (stream % (1 + options_.retry_delays_ms.size()) == 0) DisownReservedHeaders(m.headers, IsMovesHeader);
      m.redelivered = f.redelivered;
      m.delivery_count = f.delivery_count;
      m.received_at_ms = now;
      m.receipt.sequence = f.record->offset;
      m.receipt.generation = f.generation;
      m.receipt.partition = f.record->partition;
      m.receipt.stream = static_cast<int32_t>(stream);
      if (!ordered()) {
        out.push_back(std::move(m));
        continue;
      }
      touched.insert({topic, m.receipt.partition});
      if (std::optional<Message> now_out = holds_.Admit(std::move(m))) out.push_back(std::move(*now_out));
    }
    if (ordered()) PaceFetching(touched);
    return out;
  }

  Status Settle(const std::vector<Settlement>& settlements) override {
    // Receipts are this object's own: one it did not hand out, or has settled
    // already, is refused with the whole call (another client's receipt must
    // not commit past what that client holds).
    for (const Settlement& s : settlements) {
      if (!s.message || (!handed_out_.count(s.message->receipt) && !given_back_.count(s.message->receipt)))
        return Status::InvalidArgument(
            "Kafka: settling a message this consumer did not hand out, or has settled already");
    }
    if (!consumer_) {  // everything was given back with Abandon: late settlements do nothing
      for (const Settlement& s : settlements) given_back_.erase(s.message->receipt);
      return Status::OK();
    }
    struct Pending {
      PartitionKey partition;
      Receipt receipt;
    };
    std::vector<Pending> settle;     // acks, and moves once confirmed
    std::vector<OutRecord> moves;
    std::vector<Pending> moved;
    std::vector<const Settlement*> moved_settlements;
    const int64_t now = env_->NowMs();
    const int64_t again_ms = now + options_.retry_delays_ms.front();
    Status unmovable;  // a dead letter that fits nowhere, not even in the store
    // Handed out again after the shortest retry delay: the pipeline decides it again.
    auto again = [&](const Settlement& s, const PartitionKey& key) {
      released_.push_back({*s.message, again_ms, key});
      handed_out_.erase(s.message->receipt);
    };
    // A copy Kafka cannot take: a dead letter goes to the store (its offset
    // then settles); a retry is handed out again, and the record's attempts
    // still run out into a park.
    auto cannot_move = [&](const Settlement& s, const PartitionKey& key, const std::string& why) {
      if (s.kind == Settlement::Kind::kPark) {
        Status kept = ParkInStore(s, why);
        if (kept.ok()) {
          settle.push_back({key, s.message->receipt});
          return;
        }
        if (unmovable.ok()) unmovable = kept;
      }
      again(s, key);
    };
    for (const Settlement& s : settlements) {
      if (!s.message || s.message->receipt.stream < 0 || static_cast<size_t>(s.message->receipt.stream) >= consumed_.size())
        return Status::InvalidArgument("Kafka: settling a message this broker did not hand out");
      const Receipt& r = s.message->receipt;
      const PartitionKey key = KeyOf(consumed_, r);
      // A stale generation: the partition moved to another member or was
      // abandoned; its new holder settles the copy it got.
      if (given_back_.erase(r) || !consumer_->IsCurrent(key, r.generation)) {
        handed_out_.erase(r);
        continue;
      }
      Origin origin{options_.topics[MainOf(static_cast<size_t>(r.stream))], key.topic, r.partition, r.sequence,
                    options_.group};
      switch (s.kind) {
        case Settlement::Kind::kAck:
          settle.push_back({key, r});
          break;
        case Settlement::Kind::kRetry:
          if (ordered()) {
            // In place: the offset stays unsettled and the key held (key_holds.h);
            // handed out again after the pipeline's retry delay, with its first
            // failure noted as a retry copy carries it (for the dead letter).
            Message again_later = *s.message;
            again_later.headers.emplace(header::kFirstFailedMs, std::to_string(now));  // keeps an earlier one
            released_.push_back({std::move(again_later), now + std::max<int64_t>(0, s.delay_ms), key});
            handed_out_.erase(r);
            break;
          }
          [[fallthrough]];
        case Settlement::Kind::kPark: {
          const std::string reason = BoundedReason(s.reason);
          OutRecord rec = s.kind == Settlement::Kind::kRetry
                              ? RetryRecord(*s.message, origin, options_.retry_delays_ms, s.delay_ms, reason,
                                            s.attempts, now)
                              : DeadLetterRecord(*s.message, origin, reason, s.attempts, now);
          RecordFit fit = FitRecord(rec, producer_->max_message_bytes());
          if (!fit.fits) {
            cannot_move(s, key, fit.why_not);
            break;
          }
          moves.push_back(std::move(rec));
          moved.push_back({key, r});
          moved_settlements.push_back(&s);
          break;
        }
        case Settlement::Kind::kRelease:
          // The offset stays unsettled (nothing is committed past it) and this
          // member hands the message out again after the delay.
          released_.push_back({*s.message, now + std::max<int64_t>(0, s.delay_ms), key});
          handed_out_.erase(r);  // until Poll hands it out again
          break;
      }
    }
    Status result;
    if (!moves.empty()) {
      // A move settles its original only once its copy is confirmed. An
      // unconfirmed one stays unsettled (nothing is committed past it), and this
      // member hands it out again after the shortest retry delay, so the
      // pipeline decides again and the move is tried again; it would otherwise
      // wait for the next rebalance. A copy, never a loss. One refused for good
      // would be refused again: a dead letter goes to the store instead.
      result = producer_->ProduceAll(moves);
      bool given_again = false;
      for (size_t i = 0; i < moves.size(); ++i) {
        const Settlement& s = *moved_settlements[i];
        if (moves[i].stored_offset >= 0) {
          settle.push_back(moved[i]);
        } else if (moves[i].refused && s.kind == Settlement::Kind::kPark) {
          cannot_move(s, moved[i].partition, "Kafka refused it: " + result.ToString());
        } else {
          again(s, moved[i].partition);
          given_again = true;
        }
      }
      if (!given_again) result = Status::OK();  // every refusal is kept in the store (or in `unmovable`)
    }
    for (const Pending& p : settle) {
      const bool settled = consumer_->Settle(p.partition, p.receipt.sequence, p.receipt.generation);
      if (settled && ordered()) holds_.Done(p.receipt);  // its key's next record may go
      handed_out_.erase(p.receipt);
    }
    consumer_->CommitIfDue();
    if (!unmovable.ok()) return unmovable;
    return result;
  }

  Status PublishBatch(std::vector<Message>& messages, int64_t delay_ms) override {
    std::vector<OutRecord> records;
    const int64_t now = env_->NowMs();
    for (Message& m : messages) {
      const std::string& main = MainTopicFor(m.topic);
      if (m.published_at_ms == 0) m.published_at_ms = now;
      OutRecord r;
      if (delay_ms > 0) {
        Message routed = m;
        if (routed.topic.empty()) routed.topic = main;
        r = FromMessage(routed, RetryTopic(main, RetryRung(options_.retry_delays_ms, delay_ms)));
        r.headers.emplace_back(header::kDueMs, std::to_string(now + delay_ms));
      } else {
        r = FromMessage(m, main);
      }
      r.headers.emplace_back(header::kPublishedMs, std::to_string(m.published_at_ms));
      records.push_back(std::move(r));
    }
    Status s = producer_->ProduceAll(records);
    if (!s.ok()) return s;
    // A producer's own id travels in idem-message-id; without one the record's
    // place in the log is its id.
    for (size_t i = 0; i < messages.size(); ++i)
      if (messages[i].id.empty())
        messages[i].id = RecordId(records[i].topic, records[i].stored_partition, records[i].stored_offset);
    return Status::OK();
  }

  // Gives back what is handed out and not settled. A static member keeps its
  // partitions and reads them again from the lowest unsettled offset, as it
  // would after a restart under its group.instance.id: no rebalance. A dynamic
  // member leaves the group as a consumer that dies does, after committing
  // only what is settled: the group hands the partitions to the other members
  // (a real rebalance), and the unsettled records go to whoever gets them, this
  // broker included once its next Poll rejoins. Either way, late settlements
  // of the abandoned copies carry an old generation and do nothing.
  Status Abandon() override {
    given_back_.insert(handed_out_.begin(), handed_out_.end());
    handed_out_.clear();
    for (const Released& r : released_) given_back_.insert(r.message.receipt);
    released_.clear();
    holds_.Clear();
    if (consumer_ && options_.static_membership) consumer_->Rewind();
    else consumer_.reset();
    return Status::OK();
  }

  Result<int64_t> ParkRejected(const Message& message, const std::string& reason) override {
    const std::string& main = MainTopicFor(message.topic);
    Message m = message;
    if (m.published_at_ms == 0) m.published_at_ms = env_->NowMs();
    std::vector<OutRecord> records{DeadLetterRecord(m, Origin{main, main, -1, -1, options_.group}, reason,
                                                    /*attempts=*/0, env_->NowMs())};
    Status s = producer_->ProduceAll(records);
    if (!s.ok()) return s;
    return DeadLetterConsole::Id(MainOf(ConsumedIndex(main)), records[0].stored_partition,
                                 records[0].stored_offset);
  }

  Result<QueueStats> Stats() override {
    auto reader = TopicReader::Open(options_, bootstrap_);
    if (!reader.ok()) return reader.status();
    QueueStats st;
    st.ready = 0;
    st.delayed = 0;
    auto lag = [&](const std::string& topic, int64_t* sum) -> Status {
      auto ranges = reader->Ranges(topic);
      if (!ranges.ok()) return ranges.status();
      for (const PartitionRange& r : *ranges) *sum += r.high - std::max(r.low, r.committed);
      return Status::OK();
    };
    for (const std::string& t : options_.topics) {
      Status s = lag(t, &st.ready);
      for (int64_t rung : options_.retry_delays_ms)
        if (s.ok()) s = lag(RetryTopic(t, rung), &st.delayed);
      if (!s.ok()) return s;
    }
    auto dead = console_.List(SIZE_MAX, -1);
    if (!dead.ok()) return dead.status();
    st.dead = static_cast<int64_t>(dead->size());
    for (const DeadLetter& d : *dead)
      if (st.oldest_dead_ms == 0 || (d.last_failed_ms > 0 && d.last_failed_ms < st.oldest_dead_ms))
        st.oldest_dead_ms = d.last_failed_ms;
    return st;
  }

  Result<std::vector<DeadLetter>> List(size_t limit, int64_t after_id) override {
    return console_.List(limit, after_id);
  }
  Result<std::optional<DeadLetter>> Get(int64_t id) override { return console_.Get(id); }
  Result<int64_t> Replay(const std::vector<int64_t>& ids, const std::string& actor) override {
    return console_.Replay(ids, actor);
  }
  Result<int64_t> Purge(const std::vector<int64_t>& ids, const std::string& actor) override {
    return console_.Purge(ids, actor);
  }

  // KafkaHeldPartitions: 0 until the first Poll has joined the group.
  size_t held_partitions() const { return consumer_ ? consumer_->held_partitions() : 0; }

 private:
  struct Released {
    Message message;
    int64_t due_ms;
    PartitionKey partition;
  };

  // The index of `kafka_topic` in consumed_ (0 if it is none of them).
  size_t ConsumedIndex(const std::string& kafka_topic) const {
    for (size_t i = 0; i < consumed_.size(); ++i)
      if (consumed_[i] == kafka_topic) return i;
    return 0;
  }
  // The URL topic (its index in options_.topics) consumed_[stream] belongs to:
  // ConsumedTopics lists each main topic followed by its retry topics.
  size_t MainOf(size_t stream) const { return stream / (1 + options_.retry_delays_ms.size()); }

  // Where a message of routing topic `topic` is published: that Kafka topic if
  // the URL names it, else the first (with the topic in idem-topic).
  const std::string& MainTopicFor(const std::string& topic) const {
    for (const std::string& t : options_.topics)
      if (t == topic) return t;
    return options_.topics.front();
  }

  void TakeDueReleases(size_t max, std::vector<Message>& out) {
    const int64_t now = env_->NowMs();
    for (auto it = released_.begin(); it != released_.end() && out.size() < max;) {
      if (it->due_ms > now) {
        ++it;
        continue;
      }
      if (consumer_->IsCurrent(it->partition, it->message.receipt.generation)) {
        Message m = std::move(it->message);
        PartitionOffsets::Delivery d = consumer_->Redeliver(it->partition, m.receipt.sequence);
        m.redelivered = true;
        m.delivery_count = d.count;
        m.received_at_ms = now;
        out.push_back(std::move(m));
      }
      it = released_.erase(it);
    }
  }

  bool ordered() const { return options_.retry_mode == RetryMode::kOrdered; }

  // Records that waited behind a key now free (ordered mode), oldest first.
  void TakeFreedKeys(size_t max, std::vector<Message>& out) {
    const size_t before = out.size();
    holds_.TakeReady(max, out);
    const int64_t now = env_->NowMs();
    for (size_t i = before; i < out.size(); ++i) out[i].received_at_ms = now;
  }

  // Ordered mode: a partition stops fetching once `max_waiting` of its records
  // wait behind held keys, so a stuck key cannot fill the memory, and fetches
  // again once half of them went out (not at every record, which would seek
  // back and fetch again each time).
  void PaceFetching(std::set<PartitionKey> check) {
    const std::set<PartitionKey>& held_back = consumer_->held_back();
    check.insert(held_back.begin(), held_back.end());
    for (const PartitionKey& k : check) {
      const size_t waiting = holds_.Waiting(static_cast<int32_t>(ConsumedIndex(k.topic)), k.partition);
      const bool flow = held_back.count(k) ? waiting <= options_.max_waiting / 2 : waiting < options_.max_waiting;
      consumer_->SetFetching(k, flow);
    }
  }

  int64_t NextReleaseMs() const {
    int64_t next = -1;
    for (const Released& r : released_)
      if (next < 0 || r.due_ms < next) next = r.due_ms;
    return next;
  }

  KafkaOptions options_;
  std::string bootstrap_;
  StoreDeadLetterSink* store_dead_letters_ = nullptr;  // set by the Pipeline (ParksInStore)
  std::unique_ptr<ConfirmedProducer> producer_;
  DeadLetterConsole console_;
  Env* env_;
  const std::vector<std::string> consumed_;  // ConsumedTopics(): what Receipt::stream indexes
  kafka::MemberHistory history_;
  std::unique_ptr<GroupConsumer> consumer_;  // joins the group on the first Poll (again after an abandon)
  std::vector<Released> released_;
  kafka::KeyHolds holds_;  // ordered mode: records waiting behind a held key
  std::set<Receipt> handed_out_;  // handed out by Poll, not settled yet
  std::set<Receipt> given_back_;  // handed out, then given back by Abandon: settling them does nothing
};

}  // namespace
}  // namespace kafka

Result<size_t> KafkaHeldPartitions(Broker& broker) {
  auto* kafka = dynamic_cast<kafka::KafkaBroker*>(&broker);
  if (!kafka) return Status::InvalidArgument("KafkaHeldPartitions: not a broker opened by OpenKafkaBroker");
  return kafka->held_partitions();
}

Result<std::unique_ptr<Broker>> OpenKafkaBroker(const KafkaOptions& options, Env* env) {
  if (options.topics.empty()) return Status::InvalidArgument("Kafka: no topic to consume: name one in the URL path");
  if (options.retry_delays_ms.empty())
    return Status::InvalidArgument("Kafka: retry_delays_ms needs at least one delay (one retry topic per delay)");
  KafkaOptions o = options;
  // One retry topic per distinct delay (a ladder may repeat its last rung).
  std::sort(o.retry_delays_ms.begin(), o.retry_delays_ms.end());
  o.retry_delays_ms.erase(std::unique(o.retry_delays_ms.begin(), o.retry_delays_ms.end()), o.retry_delays_ms.end());
  auto bootstrap = kafka::BootstrapServers(o);
  if (!bootstrap.ok()) return bootstrap.status();
  auto producer = kafka::ConfirmedProducer::Open(o, *bootstrap);
  if (!producer.ok()) return producer.status();
  auto broker = std::make_unique<kafka::KafkaBroker>(o, *bootstrap, std::move(*producer), env);
  Status s = broker->CheckTopics();
  if (!s.ok()) return s;
  return std::unique_ptr<Broker>(std::move(broker));
}

Result<std::unique_ptr<Broker>> OpenKafkaBroker(const std::string& url, const BrokerOptions& broker_options,
                                                Env* env) {
  auto options = ParseKafkaUrl(url);
  if (!options.ok()) return options.status();
  if (!broker_options.topics.empty()) options->topics = broker_options.topics;
  if (url.find("prefetch=") == std::string::npos) options->prefetch = broker_options.prefetch;
  if (broker_options.retry_mode != RetryMode::kBrokerDefault) {
    if (url.find("retry_mode=") != std::string::npos && options->retry_mode != broker_options.retry_mode)
      return Status::InvalidArgument(
          "Kafka: the broker URL's retry_mode= and the consumer's retry_mode disagree: set it in one place");
    options->retry_mode = broker_options.retry_mode;
  }
  options->create_if_missing = broker_options.create_if_missing;
  return OpenKafkaBroker(*options, env);
}

}  // namespace idem
