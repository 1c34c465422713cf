// A scenario on a real broker (RunOptions::broker_url), in real time.
//
// The embedded driver (scenario_run.cc) moves a simulated clock; a real broker
// has its own clock (RabbitMQ's TTLs, its redelivery on a lost connection), so
// here everything runs in real time on a ScaledClock, `speedup` times faster
// than the scenario: publications go out when their time comes, retries wait in
// the broker's own wait queues for 1/speedup of their rung, and the faults act
// the way they do in production:
//   crash after commit   the consumer's step ends holding unacked copies; its
//                        broker connection is dropped (Abandon) and
//                        the broker delivers them again
//   stall / rebalance    the stalled or revoked consumer's connection is
//                        dropped; the others run until they have received what
//                        it held; a stalled one then finishes its stale copies,
//                        whose acks go nowhere
// One thread steps the consumers in turn, as in the embedded driver. The run is
// drained when every published copy has been acked or parked (TrackedBroker
// counts them), not when the broker looks empty: RabbitMQ cannot see into a
// consumer's prefetch buffer. While nothing is in flight, the clock jumps to
// the next publication.
#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "idem/kafka.h"
#include "idem/retry.h"
#include "demo/consumer_turns.h"
#include "demo/partition_key.h"
#include "demo/run_parts.h"
#include "demo/scaled_clock.h"
#include "demo/tracked_broker.h"

namespace idem::demo::detail {
namespace {

// A short session timeout: every rebalance (A3's stalls, A5's revocations)
// waits session_timeout_ms - 1000 on the mock cluster. It must still outlast
// the mock's 3 s wait at a group's first join, or the members time out in it.
constexpr int64_t kKafkaSessionTimeoutMs = 4'000;
// How long a partition can sit unread while it changes hands: a rebalance round
// takes up to a session timeout, cooperative-sticky needs two rounds, and the
// member that stalled or crashed rejoins with two more.
constexpr int64_t kKafkaTakeoverMs = 4 * kKafkaSessionTimeoutMs;

// The retry ladder of a run on Kafka, in scenario time. A retry that waits for
// another event (a payment for its top-up, a shipment for its payment) must
// outlast a takeover of the partition that event sits on, or it runs out of
// attempts while the event is merely late. In production that holds by itself
// (the default ladder's 11.5 min against a 45 s session timeout); here the
// ladder runs `speedup` times faster than the session timeout, so its last
// retry is stretched until the ladder spans a takeover in real time, as an
// operator would size it. A crashed static member keeps its partitions, but
// with ordered retries (Kafka's default) it reads them again from its held
// records after every crash, in real time, and A2 crashes after one payment in
// twelve: its consumer falls behind the compressed ladder by seconds of real
// time, which a production ladder absorbs and this one does not (charges gave
// up under a second before their top-ups came round), so that run's ladder is
// stretched the same way. The other runs keep the ladder.
RetryPolicy KafkaRetryPolicy(int64_t speedup, bool stretch) {
  RetryPolicy p;
  if (!stretch) return p;
  const int64_t needed = kKafkaTakeoverMs * speedup;
  const int64_t window = p.RetryWindowMs();
  if (window >= needed || p.max_attempts < 2) return p;
  const size_t last = std::min(static_cast<size_t>(p.max_attempts - 2), p.ladder_ms.size() - 1);
  p.ladder_ms[last] += needed - window;
  return p;
}

// kafka://SERVERS[/…][?…] → kafka://SERVERS/RUN?group=RUN&retry_delays_ms=WAITS&…:
// the run's own topic and group, whatever topic the user's URL names.
// A consumer that stalls or is revoked must hand its partitions to the others,
// which a static member does not do (it keeps them until its session times
// out), so runs with such faults have dynamic members; a crashed consumer
// comes back as a static member does, with its own partitions and no rebalance.
// Retries are ordered (Kafka's default) unless the producer does not keep a
// key's order (A6 publishes a PAID after its SHIPPED): a retry that waits in
// place for a later event of its own key would wait in vain, so that run moves
// retries to retry topics, as docs/retries-and-dlq.md tells such a consumer to.
// A retry_mode= in the user's URL comes later and wins.
std::string KafkaRunUrl(const std::string& url, const std::string& run, const std::string& waits,
                        bool hands_over, bool producer_keeps_order) {
  const size_t servers_end = url.find_first_of("/?", 8);
  const size_t query = url.find('?');
  std::string topic = run;
  for (char& c : topic)
    if (!(isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) c = '_';
  return url.substr(0, servers_end) + "/" + topic + "?group=" + topic + "&retry_delays_ms=" + waits +
         "&session_timeout_ms=" + std::to_string(kKafkaSessionTimeoutMs) + "&commit_interval_ms=100" +
         "&static_membership=" + (hands_over ? "false" : "true") +
         (producer_keeps_order ? "" : "&retry_mode=retry_topics") +
         (query == std::string::npos ? "" : "&" + url.substr(query + 1));
}

// Real milliseconds a poll waits for a first message while the run is idle.
constexpr int64_t kIdlePollMs = 20;
// Real time a run may take beyond its scaled drain limit before it is called stuck.
constexpr int64_t kGraceUs = 60'000'000;

class BrokerRun final : public ConsumerTurns {
 public:
  BrokerRun(const Workload& w, const RunOptions& o)
      : ConsumerTurns(&w.faults),
        w_(w),
        o_(o),
        wall_(o.wall_clock ? o.wall_clock : Env::Default()),
        clock_(w.start_ms, o.speedup, w.seed ^ 0x5eed5eed5eedULL, Env::Default()),
        downstream_(&clock_, w.faults.downstream) {}

  Result<RunReport> Go();

 private:
  std::string RunUrl() const;
  Result<std::unique_ptr<Broker>> Connect() const {
    BrokerOptions bo;
    bo.prefetch = o_.batch_size;
    return OpenBroker(RunUrl(), bo, Env::Default());
  }
  Status AddConsumers();
  Status JoinGroup();
  Status PublishDue();
  Status Drive();
  Status HandOverUntil(const std::vector<std::string>& ids, size_t from) override;
  Status AfterStep(size_t i) override;
  void SetIdle(bool idle) {
    for (TrackedBroker* t : tracked_) t->set_min_wait_ms(idle ? kIdlePollMs : 0);
  }
  // Every published copy finished. On Kafka a finished copy can come back (its
  // offset was not committed yet when its partition moved) and be finished
  // twice, so the count only says when to look: the group's lag, from the
  // committed offsets, says whether everything is settled.
  bool Drained() {
    if (count_.outstanding() > 0) return false;
    if (!OnKafka()) return true;
    auto st = producer_->Stats();
    return st.ok() && st->ready == 0 && st->delayed == 0;
  }
  bool OnKafka() const { return o_.broker_url.rfind("kafka://", 0) == 0; }
  // Whether a fault of the run makes a consumer hand what it holds to the others.
  bool HandsOver() const {
    return !w_.faults.Strikes(Fault::kSlowHandler).empty() || !w_.faults.Strikes(Fault::kRebalance).empty();
  }
  // Whether a consumer of the run crashes (and rereads what it held, A2).
  bool Crashes() const { return !w_.faults.Strikes(Fault::kCrashAfterCommit).empty(); }
  // The idem consumers' retry ladder, in scenario time.
  RetryPolicy Ladder() const {
    return OnKafka() ? KafkaRetryPolicy(clock_.speedup(), HandsOver() || Crashes()) : RetryPolicy{};
  }
  Status CheckDeadline(const std::string& what) const {
    if (Env::Default()->MonotonicMicros() <= deadline_us_) return Status::OK();
    return Status::Permanent(what + ": " + std::to_string(count_.outstanding()) +
                             " published copies were neither acked nor parked in time (broker " + RunUrl() + ")");
  }

  const Workload& w_;
  const RunOptions& o_;
  Env* wall_;
  ScaledClock clock_;
  DeliveryLog log_;
  SimulatedDownstream downstream_;
  std::string run_id_;
  std::unique_ptr<Broker> producer_;
  std::vector<TrackedBroker*> tracked_;  // consumer i's broker, owned by consumers_[i]
  CopyCount count_;
  std::map<std::string, std::string> account_of_order_;  // the Kafka partition key of order events
  size_t next_publication_ = 0;
  int64_t deadline_us_ = 0;
  int64_t busy_us_ = 0;
};

// amqp:// URLs get the run's own queue (so runs never share one), the prefetch
// and the wait queues of the scaled ladder; kafka:// URLs get the run's own
// topic and consumer group and the scaled ladder as retry topics; other URLs
// (an embedded queue file) are used as given.
std::string BrokerRun::RunUrl() const {
  const std::string& url = o_.broker_url;
  std::string waits;
  for (int64_t ms : Ladder().ladder_ms)
    waits += (waits.empty() ? "" : ",") + std::to_string(clock_.ToRealMs(ms));
  const std::string name = o_.schema.empty() ? "idem_demo" : o_.schema;
  if (url.rfind("kafka://", 0) == 0) return KafkaRunUrl(url, name + "." + run_id_, waits, HandsOver(), w_.cause != Cause::kOutOfOrder);
  if (url.rfind("amqp://", 0) != 0) return url;
  return url + (url.find('?') == std::string::npos ? "?" : "&") + "queue=" + name + "." + run_id_ +
         "&prefetch=" + std::to_string(o_.batch_size) + "&known_wait_ms=" + waits +
         // Every release with a delay (a copy held until its retry is due, a live
         // claim elsewhere) waits in a hold queue (at least 1 s) rather than being
         // requeued again and again while the scaled delay is still running.
         "&release_min_delay_ms=1";
}

Status BrokerRun::AddConsumers() {
  ConsumerParts parts;
  parts.env = &clock_;
  parts.downstream = &downstream_;
  parts.faults = &faults_;
  parts.log = &log_;
  parts.run_id = run_id_;
  parts.retry = Ladder();
  for (size_t i = 0; i < w_.consumers; ++i) {
    auto broker = Connect();
    if (!broker.ok()) return broker.status();
    auto tracked = std::make_unique<TrackedBroker>(std::move(*broker), &clock_, &count_);
    TrackedBroker* raw = tracked.get();
    auto c = MakeConsumer(o_, std::move(tracked), i, parts);
    if (!c.ok()) return c.status();
    consumers_.push_back(std::move(*c));
    tracked_.push_back(raw);
  }
  return Status::OK();
}

// Kafka: every consumer joins the run's group and gets its share of the
// partitions before the scenario clock starts, as a deployed group has before
// traffic arrives. Otherwise a member whose join reaches the mock later than its
// 3 s wait at a group's first join (as happens when other runs start at the
// same moment) joins once the first member is consuming, and that extra
// rebalance hands out again what the first member read: copies that come from
// the start-up, not from the scenario's faults. Nothing is published yet, so
// these polls receive nothing.
Status BrokerRun::JoinGroup() {
  const int64_t deadline_us = Env::Default()->MonotonicMicros() + kGraceUs;
  for (;;) {
    size_t with_partitions = 0;
    for (TrackedBroker* t : tracked_) {
      auto got = t->inner().source().Poll(1, kIdlePollMs);
      if (!got.ok()) return got.status();
      if (!got->empty())
        return Status::Permanent("the topic of run " + run_id_ + " holds messages before the run published any");
      auto held = KafkaHeldPartitions(t->inner());
      if (!held.ok()) return held.status();
      if (*held > 0) ++with_partitions;
    }
    if (with_partitions == tracked_.size()) return Status::OK();
    if (Env::Default()->MonotonicMicros() > deadline_us)
      return Status::Unavailable("only " + std::to_string(with_partitions) + " of the " +
                                 std::to_string(tracked_.size()) + " consumers got partitions of group " + RunUrl() +
                                 " within " + std::to_string(kGraceUs / 1'000'000) + " s; check that the cluster answers");
  }
}

// Publishes every copy whose time has come, in publishing order.
Status BrokerRun::PublishDue() {
  std::vector<Message> batch;
  const int64_t now = clock_.NowMs();
  for (; next_publication_ < w_.publications.size(); ++next_publication_) {
    const Publication& p = w_.publications[next_publication_];
    if (w_.start_ms + p.at_ms > now) break;
    Message m = PublicationMessage(w_, p);
    m.published_at_ms = now;
    if (OnKafka()) m.key = KafkaPartitionKey(m.payload, account_of_order_);
    batch.push_back(std::move(m));
  }
  if (batch.empty()) return Status::OK();
  IDEM_RETURN_IF_ERROR(producer_->publisher().PublishBatch(batch, 0));
  count_.published += static_cast<int64_t>(batch.size());
  return Status::OK();
}

// Still holding copies after its step: the consumer died (or lost its session)
// with them. The broker takes them back and delivers them again.
Status BrokerRun::AfterStep(size_t i) {
  return tracked_[i]->held() > 0 ? tracked_[i]->Abandon() : Status::OK();
}

// The broker takes from `from` what it held (its connection is gone, as after a
// consumer timeout or a rebalance); the others run until each of those messages
// has reached one of them.
Status BrokerRun::HandOverUntil(const std::vector<std::string>& ids, size_t from) {
  IDEM_RETURN_IF_ERROR(tracked_[from]->Abandon());
  HandOverWait wait(ids, from, log_);
  while (!wait.Done()) {
    IDEM_RETURN_IF_ERROR(PublishDue());
    bool progressed = false;
    IDEM_RETURN_IF_ERROR(StepAll(&progressed, from));
    SetIdle(!progressed);
    IDEM_RETURN_IF_ERROR(
        CheckDeadline("hand-over: " + std::to_string(wait.left()) + " message(s) never reached another consumer"));
  }
  return Status::OK();
}

Status BrokerRun::Drive() {
  const std::vector<Publication>& pubs = w_.publications;
  for (;;) {
    IDEM_RETURN_IF_ERROR(PublishDue());
    if (Drained()) {
      if (next_publication_ == pubs.size()) return Status::OK();
      // Nothing in flight anywhere: the quiet time until the next publication
      // cannot change anything, so it is skipped.
      clock_.JumpTo(w_.start_ms + pubs[next_publication_].at_ms);
      continue;
    }
    bool progressed = false;
    const int64_t round_start = wall_->MonotonicMicros();
    IDEM_RETURN_IF_ERROR(StepAll(&progressed));
    if (progressed) busy_us_ += wall_->MonotonicMicros() - round_start;
    SetIdle(!progressed);
    IDEM_RETURN_IF_ERROR(CheckDeadline("the run did not drain"));
  }
}

Result<RunReport> BrokerRun::Go() {
  if (o_.speedup < 1) return Status::InvalidArgument("speedup must be at least 1");
  run_id_ = NewRunId(wall_);
  account_of_order_ = AccountOfOrder(w_);
  IDEM_RETURN_IF_ERROR(PrepareStore(w_, o_, &clock_));
  auto producer = Connect();
  if (!producer.ok()) return producer.status();
  producer_ = std::move(*producer);
  IDEM_RETURN_IF_ERROR(AddConsumers());
  if (OnKafka()) IDEM_RETURN_IF_ERROR(JoinGroup());

  clock_.Restart();
  const int64_t t0 = wall_->MonotonicMicros();
  deadline_us_ = Env::Default()->MonotonicMicros() + o_.max_drain_ms * 1000 / clock_.speedup() + kGraceUs;
  IDEM_RETURN_IF_ERROR(Drive());
  RunReport report;
  report.wall_seconds = static_cast<double>(wall_->MonotonicMicros() - t0) / 1e6;
  report.busy_seconds = static_cast<double>(busy_us_) / 1e6;
  const int64_t simulated_ms = clock_.NowMs() - w_.start_ms;
  consumers_.clear();  // close their connections: anything unacked would show up as ready

  IDEM_RETURN_IF_ERROR(MeasureInto(w_, o_, &clock_, *producer_, &report));
  report.published = count_.published;
  report.deliveries = static_cast<int64_t>(log_.deliveries().size());
  report.duplicate_deliveries = DuplicateDeliveries(w_, log_);
  report.simulated_ms = simulated_ms;
  report.downstream = downstream_.stats();
  report.broker_queue = RunUrl();
  return report;
}

}  // namespace

Result<RunReport> RunOnBroker(const Workload& workload, const RunOptions& options) {
  BrokerRun run(workload, options);
  return run.Go();
}

}  // namespace idem::demo::detail
