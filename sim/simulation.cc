#include "sim/simulation.h"

#include <xxhash.h>

#include <stdexcept>

#include "idem/consumer.h"
#include "idem/pipeline.h"
#include "idem/store.h"
#include "sim/faulty_store.h"
#include "sim/incarnation.h"
#include "sim/key_order_checker.h"
#include "sim/outbox_chain_relay.h"
#include "sim/sim_redis.h"
#include "core/pipeline_test_hooks.h"

namespace idem::sim {
namespace {

constexpr int64_t kVisibilityTimeoutMs = 30'000;
constexpr int kMaxRounds = 200'000;

// RocketMQ's delay levels for RECONSUME_LATER, 16 attempts.
const std::vector<int64_t> kRocketLadder{1'000,   5'000,   10'000,  30'000,  60'000,  120'000,
                                         180'000, 240'000, 300'000, 360'000, 420'000, 480'000,
                                         540'000, 600'000, 1'200'000, 1'800'000};

struct Consumer {
  int index = 0;
  bool downstream = false;  // a consumer of the group behind the outbox relay
  std::unique_ptr<Incarnation> life;
  // The process: its store and broker connections, its fast filter, its pipeline.
  std::unique_ptr<idem::Consumer> process;
};

class Run {
 public:
  Run(const SimOptions& o, const WorkloadFactory& wf) : opt_(o), env_(o.seed), workload_(wf()) {}

  SimResult Go();

 private:
  void Start(Consumer& c);
  std::vector<HandlerSpec> WrappedHandlers(bool downstream);
  void PublishSome();
  void PlanCrash(Incarnation& life);
  SimBroker& BrokerOf(const Consumer& c) { return c.downstream ? *down_broker_ : *broker_; }
  void StartChain(std::vector<Consumer>& consumers);
  bool StepRelays();
  int64_t NextEventMs();

  SimOptions opt_;
  SimEnv env_;
  std::unique_ptr<Workload> workload_;
  FaultPlan plan_;
  SimResult result_;
  std::unique_ptr<FaultDice> dice_;
  std::unique_ptr<Store> db_;
  std::unique_ptr<SimBroker> broker_;
  std::unique_ptr<SimRedis> redis_;
  int64_t db_down_until_ms_ = 0;
  PipelineOptions popt_;
  std::vector<Event> events_;
  size_t next_event_ = 0;
  std::vector<std::pair<int64_t, Message>> resends_;  // (due time, copy)
  std::vector<SeenDecision> decisions_;  // the upstream group's, in order, for the key order checker
  bool kafka_poll_overrun_ = false;
  // The outbox chain (workloads with a downstream stage): relays publish into down_broker_.
  std::optional<DownstreamStage> downstream_;
  std::unique_ptr<SimBroker> down_broker_;
  std::unique_ptr<RelayDice> relay_dice_;
  std::vector<std::unique_ptr<SimRelay>> relays_;
};

std::vector<HandlerSpec> Run::WrappedHandlers(bool downstream) {
  std::vector<HandlerSpec> specs = downstream ? downstream_->handlers : workload_->Handlers(env_);
  for (HandlerSpec& s : specs) {
    HandlerFn inner = s.fn;
    s.fn = [this, inner](HandlerContext& ctx) -> HandlerResult {
      if (dice_->Roll(Fault::kSlowHandler)) {
        // The handler outlives the visibility timeout, Kafka's max.poll.interval
        // and sometimes the claim lease too.
        env_.Advance(kVisibilityTimeoutMs + env_.Range(1, popt_.lease_ms));
        kafka_poll_overrun_ = true;
      }
      HandlerResult r = inner(ctx);
      if (r.outcome == HandlerResult::Outcome::kOk && dice_->Roll(Fault::kThrowAfterEffect))
        throw std::runtime_error("simulated failure after the side effect");  // throw after a side effect
      return r;
    };
  }
  return specs;
}

void Run::Start(Consumer& c) {
  c.process.reset();  // the old process's memory is gone
  c.life = std::make_unique<Incarnation>();
  ConsumerParts parts;
  parts.store = std::make_unique<FaultyStore>(db_.get(), dice_.get(), c.life.get(), &db_down_until_ms_);
  parts.source = BrokerOf(c).Connect(c.index, c.life.get());
  if (redis_) parts.fast_filter = redis_->Connect(c.life.get());
  ConsumerOptions options;
  options.pipeline = popt_;
  if (c.downstream) options.pipeline.consumer_group = "sim-downstream";
  auto process = idem::Consumer::Assemble(std::move(parts), options, &env_);
  // Every part is there and the default filter TTL (a day) outlasts every retry ladder here.
  if (!process.ok()) throw std::logic_error("the simulator's consumer: " + process.status().ToString());
  c.process = std::move(*process);
  Pipeline& pipeline = c.process->pipeline();
  if (!opt_.protection || (c.downstream && !downstream_->guard)) PipelineTestHooks::TurnGuardOff(pipeline);
  for (HandlerSpec& s : WrappedHandlers(c.downstream)) (void)pipeline.Register(std::move(s));
  pipeline.SetDecisionSink([this, upstream = !c.downstream](const Decision& d) {
    if (upstream) decisions_.push_back({d.message_id, d.kind});
    std::string line = DecisionToJson(d);
    result_.digest = XXH3_64bits_withSeed(line.data(), line.size(), result_.digest);
    if (opt_.keep_trace) result_.trace.push_back(std::move(line));
    switch (d.kind) {
      case DecisionKind::kFirst: result_.first++; break;
      case DecisionKind::kDuplicate: result_.duplicate++; break;
      case DecisionKind::kConflict: result_.conflict++; break;
      case DecisionKind::kRetry: result_.retried++; break;
      case DecisionKind::kParked: result_.parked++; break;
      default: result_.released++; break;
    }
  });
}

void Run::PublishSome() {
  const int64_t now = env_.NowMs();
  for (auto it = resends_.begin(); it != resends_.end();) {
    if (it->first <= now) {
      broker_->Publish(it->second);
      it = resends_.erase(it);
    } else {
      ++it;
    }
  }
  for (int64_t n = env_.Range(1, 8); n > 0 && next_event_ < events_.size(); --n) {
    const Message& m = events_[next_event_++].msg;
    broker_->Publish(m);
    // The producer timed out and sent again, later, with the same or a new id.
    if (dice_->Roll(Fault::kProducerResendSameId)) resends_.emplace_back(now + env_.Range(0, 20'000), m);
    if (dice_->Roll(Fault::kProducerResendNewId)) {
      Message copy = m;
      copy.id += "-resend";
      resends_.emplace_back(now + env_.Range(0, 20'000), copy);
    }
  }
}

void Run::PlanCrash(Incarnation& life) {
  life.planned = CrashPoint::kNone;
  if (dice_->Roll(Fault::kCrashBeforeHandler)) life.planned = CrashPoint::kBeforeHandler;
  else if (dice_->Roll(Fault::kCrashInTransaction)) life.planned = CrashPoint::kInTransaction;
  else if (dice_->Roll(Fault::kCrashAfterCommit)) life.planned = CrashPoint::kAfterCommit;
  else if (dice_->Roll(Fault::kCrashDuringAck)) life.planned = CrashPoint::kDuringAck;
}

// The outbox chain: a broker of its own for the emitted messages, as many
// consumers of the downstream group as upstream, and one or two relays.
void Run::StartChain(std::vector<Consumer>& consumers) {
  // Drawn from a fork, so the seed's other draws stay those of a run without the chain.
  SimEnv draws = env_.Fork(0x636861696e);  // "chain"
  down_broker_ = std::make_unique<SimBroker>(dice_.get(), result_.model, opt_.consumers, 3, kVisibilityTimeoutMs);
  relay_dice_ = std::make_unique<RelayDice>(&env_);
  const outbox::RelayOptions ro = SimRelayOptions(draws);
  SimRelayWorld world{db_.get(), dice_.get(), relay_dice_.get(), &db_down_until_ms_, down_broker_.get(),
                      downstream_->relay_marks_before_publishing};
  for (int64_t n = draws.Range(1, 2); n > 0; --n) relays_.push_back(std::make_unique<SimRelay>(world, ro));
  for (auto& relay : relays_) {
    // While one relay's publish outlives its claim, the others keep stepping.
    relay->SetMeanwhile([this, self = relay.get()] {
      for (auto& other : relays_)
        if (other.get() != self && !other->busy()) other->Step();
    });
  }
  for (int i = 0; i < opt_.consumers; ++i) {
    Consumer c;
    c.index = i;
    c.downstream = true;
    consumers.push_back(std::move(c));
    Start(consumers.back());
  }
}

bool Run::StepRelays() {
  bool progressed = false;
  const size_t first = relays_.empty() ? 0 : static_cast<size_t>(env_.Range(0, static_cast<int64_t>(relays_.size()) - 1));
  for (size_t k = 0; k < relays_.size(); ++k) progressed |= relays_[(first + k) % relays_.size()]->Step() > 0;
  return progressed;
}

// The earliest time something becomes deliverable or due (0 if nothing waits).
int64_t Run::NextEventMs() {
  int64_t next = broker_->NextEventMs();
  auto consider = [&](int64_t t) {
    if (t > 0 && (next == 0 || t < next)) next = t;
  };
  if (down_broker_) {
    consider(down_broker_->NextEventMs());
    if (auto due = NextOutboxDueMs(*db_)) consider(*due);
  }
  return next;
}

SimResult Run::Go() {
  result_.seed = opt_.seed;
  plan_ = FaultPlan::Swarm(env_);
  dice_ = std::make_unique<FaultDice>(&env_, &plan_, &result_.coverage);
  result_.model = opt_.model.value_or(static_cast<DeliveryModel>(env_.Range(0, 2)));
  result_.redis = opt_.protection && opt_.redis.value_or(env_.Chance(0.5));
  if (!result_.redis) {
    // Without a filter the Redis faults have nothing to act on; disabling them keeps coverage honest.
    for (Fault f : {Fault::kRedisEvict, Fault::kRedisEarlyExpiry, Fault::kRedisOutage, Fault::kRedisFailoverLoss})
      plan_.p[static_cast<int>(f)] = 0;
  }

  SqliteStoreOptions so;
  so.durable_against_power_loss = false;
  auto db = OpenSqliteStore(":memory:", so, &env_);
  if (!db.ok()) {
    result_.report.Fail("setup", db.status().ToString());
    return result_;
  }
  db_ = std::move(*db);
  events_ = workload_->Events(*dice_, opt_.events);  // first: the seed data may depend on them
  if (Status s = workload_->Setup(*db_, opt_.protection); !s.ok()) {
    result_.report.Fail("setup", s.ToString());
    return result_;
  }
  broker_ = std::make_unique<SimBroker>(dice_.get(), result_.model, opt_.consumers, 3, kVisibilityTimeoutMs);
  if (opt_.ordered_retries) broker_->set_ordered_retries(*opt_.ordered_retries);
  result_.ordered_retries = result_.model == DeliveryModel::kKafka && broker_->ordered_retries();
  if (result_.redis) redis_ = std::make_unique<SimRedis>(dice_.get());

  popt_.consumer_group = "sim";
  popt_.batch_size = static_cast<size_t>(env_.Range(1, 32));
  popt_.max_linger_ms = 0;
  popt_.max_payload_bytes = 4096;
  if (result_.model == DeliveryModel::kRocket) {
    popt_.retry.ladder_ms = kRocketLadder;
    popt_.retry.max_attempts = kRocketMaxReconsume;
  }
  downstream_ = workload_->Downstream();
  std::vector<Consumer> consumers(opt_.consumers);
  for (int i = 0; i < opt_.consumers; ++i) {
    consumers[i].index = i;
    Start(consumers[i]);
  }
  if (downstream_) StartChain(consumers);
  const int actors = static_cast<int>(consumers.size());

  const int64_t t0 = env_.NowMs();
  int quiet_rounds_after_publish = 0;
  for (int round = 0; round < kMaxRounds; ++round) {
    PublishSome();
    const bool all_published = next_event_ == events_.size() && resends_.empty();
    if (all_published && ++quiet_rounds_after_publish == 50) {  // drain: no new faults
      dice_->Disable();
      if (relay_dice_) relay_dice_->Disable();
    }

    bool progressed = false;
    const int first = static_cast<int>(env_.Range(0, actors - 1));
    for (int k = 0; k < actors; ++k) {
      Consumer& c = consumers[(first + k) % actors];
      if (dice_->Roll(Fault::kRebalance)) BrokerOf(c).Rebalance();
      if (dice_->Roll(Fault::kClockJump)) env_.JumpWallClock(env_.Range(-5'000, 120'000));
      PlanCrash(*c.life);
      kafka_poll_overrun_ = false;
      BatchReport r = c.process->pipeline().RunOnce();
      progressed |= r.polled > 0;
      c.life->planned = CrashPoint::kNone;
      if (c.life->crashed) {
        result_.crashes++;
        BrokerOf(c).Crash(c.index);
        Start(c);
      }
      if (kafka_poll_overrun_ && result_.model == DeliveryModel::kKafka) BrokerOf(c).Rebalance();
    }
    progressed |= StepRelays();
    env_.Advance(env_.Range(1, 50));
    if (!progressed) {
      const bool chain_drained = !down_broker_ || (down_broker_->Drained() && !NextOutboxDueMs(*db_));
      if (all_published && broker_->Drained() && chain_drained) {
        result_.drained = true;
        break;
      }
      const int64_t next = NextEventMs();
      env_.Advance(next > env_.NowMs() ? next - env_.NowMs() : 1'000);
    }
  }
  result_.sim_time_ms = env_.NowMs() - t0;
  result_.deliveries = broker_->deliveries() + (down_broker_ ? down_broker_->deliveries() : 0);
  for (const auto& relay : relays_) result_.crashes += relay->crashes();
  if (relay_dice_)
    for (int f = 0; f < kRelayFaultCount; ++f)
      result_.relay_faults[RelayFaultName(static_cast<RelayFault>(f))] = relay_dice_->fired()[f];
  if (!result_.drained) result_.report.Fail("liveness", "the run did not drain within the round limit");
  consumers.clear();
  relays_.clear();
  workload_->Check(*db_, *broker_, events_, result_.report);
  if (result_.ordered_retries || (result_.model == DeliveryModel::kKafka && opt_.check_key_order))
    CheckKeyOrder(events_, decisions_, result_.report);
  if (down_broker_) workload_->CheckDownstream(*db_, *down_broker_, result_.report);
  return result_;
}

}  // namespace

SimResult RunSimulation(const SimOptions& options, const WorkloadFactory& workload) {
  Run run(options, workload);
  return run.Go();
}

std::string ReplayCommand(const SimResult& r, const SimOptions& options) {
  std::string cmd = "idem sim --seed " + std::to_string(r.seed) + " --events " + std::to_string(options.events);
  if (!options.workload.empty()) cmd += " --workload " + options.workload;
  if (!options.protection) cmd += " --protection off";
  if (options.ordered_retries) cmd += *options.ordered_retries ? " --retry-mode ordered" : " --retry-mode retry_topics";
  return cmd;
}

}  // namespace idem::sim
