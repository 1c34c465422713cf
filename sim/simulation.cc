#include "sim/simulation.h"

#include <xxhash.h>

#include "idem/pipeline.h"
#include "idem/store.h"
#include "sim/faulty_store.h"
#include "sim/incarnation.h"
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
  std::unique_ptr<Incarnation> life;
  std::unique_ptr<FaultyStore> store;
  std::unique_ptr<Source> source;
  std::unique_ptr<FastFilter> filter;
  std::unique_ptr<Pipeline> pipeline;
};

class Run {
 public:
  Run(const SimOptions& o, const WorkloadFactory& wf) : opt_(o), env_(o.seed), workload_(wf()) {}

  SimResult Go();

 private:
  void Start(Consumer& c);
  std::vector<HandlerSpec> WrappedHandlers();
  void PublishSome();
  void PlanCrash(Incarnation& life);

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
  bool kafka_poll_overrun_ = false;
};

std::vector<HandlerSpec> Run::WrappedHandlers() {
  std::vector<HandlerSpec> specs = workload_->Handlers(env_);
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
  c.pipeline.reset();  // the old process's memory is gone
  c.life = std::make_unique<Incarnation>();
  c.store = std::make_unique<FaultyStore>(db_.get(), dice_.get(), c.life.get(), &db_down_until_ms_);
  c.source = broker_->Connect(c.index, c.life.get());
  c.pipeline = std::make_unique<Pipeline>(c.source.get(), c.store.get(), &env_, popt_);
  if (!opt_.protection) PipelineTestHooks::TurnGuardOff(*c.pipeline);
  for (HandlerSpec& s : WrappedHandlers()) (void)c.pipeline->Register(std::move(s));
  if (redis_) {
    c.filter = redis_->Connect(c.life.get());
    (void)c.pipeline->SetFastFilter(c.filter.get(), FastFilterOptions{});
  }
  c.pipeline->SetDecisionSink([this](const Decision& d) {
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
  if (result_.redis) redis_ = std::make_unique<SimRedis>(dice_.get());

  popt_.consumer_group = "sim";
  popt_.batch_size = static_cast<size_t>(env_.Range(1, 32));
  popt_.max_linger_ms = 0;
  popt_.max_payload_bytes = 4096;
  if (result_.model == DeliveryModel::kRocket) {
    popt_.retry.ladder_ms = kRocketLadder;
    popt_.retry.max_attempts = kRocketMaxReconsume;
  }
  std::vector<Consumer> consumers(opt_.consumers);
  for (int i = 0; i < opt_.consumers; ++i) {
    consumers[i].index = i;
    Start(consumers[i]);
  }

  const int64_t t0 = env_.NowMs();
  int quiet_rounds_after_publish = 0;
  for (int round = 0; round < kMaxRounds; ++round) {
    PublishSome();
    const bool all_published = next_event_ == events_.size() && resends_.empty();
    if (all_published && ++quiet_rounds_after_publish == 50) dice_->Disable();  // drain: no new faults

    bool progressed = false;
    const int first = static_cast<int>(env_.Range(0, opt_.consumers - 1));
    for (int k = 0; k < opt_.consumers; ++k) {
      Consumer& c = consumers[(first + k) % opt_.consumers];
      if (dice_->Roll(Fault::kRebalance)) broker_->Rebalance();
      if (dice_->Roll(Fault::kClockJump)) env_.JumpWallClock(env_.Range(-5'000, 120'000));
      PlanCrash(*c.life);
      kafka_poll_overrun_ = false;
      BatchReport r = c.pipeline->RunOnce();
      progressed |= r.polled > 0;
      c.life->planned = CrashPoint::kNone;
      if (c.life->crashed) {
        result_.crashes++;
        broker_->Crash(c.index);
        Start(c);
      }
      if (kafka_poll_overrun_ && result_.model == DeliveryModel::kKafka) broker_->Rebalance();
    }
    env_.Advance(env_.Range(1, 50));
    if (!progressed) {
      if (all_published && broker_->Drained()) {
        result_.drained = true;
        break;
      }
      const int64_t next = broker_->NextEventMs();
      env_.Advance(next > env_.NowMs() ? next - env_.NowMs() : 1'000);
    }
  }
  result_.sim_time_ms = env_.NowMs() - t0;
  result_.deliveries = broker_->deliveries();
  if (!result_.drained) result_.report.Fail("liveness", "the run did not drain within the round limit");
  consumers.clear();
  workload_->Check(*db_, *broker_, events_, result_.report);
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
  return cmd;
}

}  // namespace idem::sim
