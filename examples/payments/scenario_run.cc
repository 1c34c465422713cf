#include "payments/scenario_run.h"

#include <algorithm>
#include <map>
#include <set>

#include "idem/embedded_queue.h"
#ifdef IDEM_WITH_REDIS
#include "idem/redis_filter.h"
#endif
#include "payments/idem_consumer.h"
#include "payments/naive_consumer.h"
#include "payments/seeded_env.h"

namespace idem::payments {
namespace {

// How far the clock moves while nothing is ready: doubling, reset by progress.
class IdleStep {
 public:
  explicit IdleStep(const RunOptions& o) : min_(o.idle_step_ms), max_(std::max(o.idle_step_ms, o.max_idle_step_ms)) {}
  int64_t Next() {
    const int64_t step = step_;
    step_ = std::min(step_ * 2, max_);
    return step;
  }
  void Reset() { step_ = min_; }

 private:
  int64_t min_, max_;
  int64_t step_ = min_;
};

class Run {
 public:
  Run(const Workload& w, const RunOptions& o)
      : w_(w),
        o_(o),
        env_(w.start_ms, w.seed ^ 0x5eed5eed5eedULL),
        wall_(o.wall_clock ? o.wall_clock : Env::Default()),
        faults_(&w.faults),
        downstream_(&env_, w.faults.downstream) {}

  Result<RunReport> Go();

 private:
  std::string StorePath() const { return o_.dir + "/store.db"; }
  std::string QueuePath() const { return o_.dir + "/queue.db"; }
  // The run's own schema on a shared PostgreSQL database.
  std::string RunStoreUrl() const {
    return o_.store_url + (o_.store_url.find('?') == std::string::npos ? "?" : "&") +
           "options=-csearch_path%3D" + o_.schema;
  }
  Result<std::unique_ptr<Store>> OpenStore() {
    if (!o_.store_url.empty()) return idem::OpenStore(RunStoreUrl(), &env_);
    SqliteStoreOptions so;
    so.durable_against_power_loss = false;  // a demo: survive a process crash, skip the fsync per commit
    return OpenSqliteStore(StorePath(), so, &env_);
  }
  Result<std::unique_ptr<EmbeddedQueue>> OpenQueue() {
    EmbeddedQueueOptions qo;
    qo.visibility_timeout_ms = o_.visibility_timeout_ms;
    qo.durable_against_power_loss = false;
    return EmbeddedQueue::Open(QueuePath(), qo, &env_);
  }
  Status Setup();
  Status Publish(EmbeddedQueue& queue);
  Status AddConsumers();
  Status Drive(EmbeddedQueue& queue);
  Status StepAll(bool* progressed, size_t skip = SIZE_MAX);
  void HandOver(const std::vector<std::string>& ids, size_t from);
  void HandOverUntil(const std::vector<std::string>& ids, size_t from);
  int64_t DuplicateDeliveries() const;

  const Workload& w_;
  const RunOptions& o_;
  SeededEnv env_;
  Env* wall_;  // real time: wall and busy seconds, and the Redis key prefix of a run
  int64_t busy_us_ = 0;
  FaultInjector faults_;
  DeliveryLog log_;
  SimulatedDownstream downstream_;
  std::vector<std::unique_ptr<Consumer>> consumers_;
  Status handover_status_;
  std::string redis_run_id_;
};

Status Run::Setup() {
  if (!o_.store_url.empty()) {
    if (o_.schema.empty() || o_.schema.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") != std::string::npos)
      return Status::InvalidArgument("run schema '" + o_.schema + "' must be a plain lower-case identifier");
    auto admin = idem::OpenStore(o_.store_url, &env_);
    if (!admin.ok()) return admin.status();
    // The name is built by the demo from fixed parts, never from message content.
    IDEM_RETURN_IF_ERROR((*admin)->ExecScript("DROP SCHEMA IF EXISTS " + o_.schema + " CASCADE; CREATE SCHEMA " +
                                              o_.schema));
  }
  auto store = OpenStore();
  if (!store.ok()) return store.status();
  IDEM_RETURN_IF_ERROR(CreateSchema(**store, o_.protection ? SchemaVariant::kGuarded : SchemaVariant::kIncident));
  return SeedData(**store, w_.accounts, w_.skus, w_.orders);
}

Status Run::Publish(EmbeddedQueue& queue) {
  for (const Publication& p : w_.publications) {
    const BusinessEvent& e = w_.events[p.event];
    Message m;
    m.id = p.message_id;
    m.topic = e.topic;
    m.payload = e.payload;
    // Delayed delivery stands in for the producer publishing at that moment.
    auto r = queue.Publish(m, p.at_ms);
    if (!r.ok()) return r.status();
  }
  return Status::OK();
}

Status Run::AddConsumers() {
  for (size_t i = 0; i < w_.consumers; ++i) {
    auto queue = OpenQueue();
    if (!queue.ok()) return queue.status();
    auto store = OpenStore();
    if (!store.ok()) return store.status();
    if (!o_.protection) {
      consumers_.push_back(std::make_unique<NaiveConsumer>(std::move(*queue), std::move(*store), &env_, &downstream_, i,
                                                           o_.batch_size, &faults_, &log_));
      continue;
    }
    PipelineOptions po;
    po.consumer_group = "payments";
    po.batch_size = o_.batch_size;
    po.max_linger_ms = 0;  // the driver moves the clock; a consumer must not wait on it
    ServiceOptions so{&downstream_, o_.service_log};
    auto c = IdemConsumer::Create(std::move(*queue), std::move(*store), &env_, i, &faults_, &log_, po, so);
    if (!c.ok()) return c.status();
    if (!o_.redis_url.empty()) {
#ifdef IDEM_WITH_REDIS
      RedisFilterOptions ro;
      // A fresh prefix per run: DONE keys of an earlier run with the same ids would
      // otherwise acknowledge this run's first copies against an empty database.
      if (redis_run_id_.empty()) redis_run_id_ = std::to_string(wall_->Random64() % 1'000'000'000'000ULL);
      ro.key_prefix = "idem-demo:" + (o_.schema.empty() ? o_.dir : o_.schema) + ":" + redis_run_id_ + ":";
      auto filter = OpenRedisFilter(o_.redis_url, ro, &env_);
      if (!filter.ok()) return filter.status();
      IDEM_RETURN_IF_ERROR((*c)->UseFastFilter(std::move(*filter)));
#else
      return Status::InvalidArgument("a Redis URL needs the Redis filter, which this build leaves out: "
                                     "configure with -DIDEM_WITH_REDIS=ON");
#endif
    }
    consumers_.push_back(std::move(*c));
  }
  faults_.on_stall = [this](size_t consumer, const std::vector<std::string>& ids) { HandOver(ids, consumer); };
  return Status::OK();
}

Status Run::StepAll(bool* progressed, size_t skip) {
  for (size_t i = 0; i < consumers_.size(); ++i) {
    if (i == skip) continue;
    auto n = consumers_[i]->Step();
    if (!n.ok()) return n.status();
    IDEM_RETURN_IF_ERROR(handover_status_);
    *progressed |= *n > 0;
    if (std::vector<std::string> ids = faults_.TakeHandOver(); !ids.empty()) {
      HandOver(ids, i);
      IDEM_RETURN_IF_ERROR(handover_status_);
    }
  }
  return Status::OK();
}

// The messages `from` held go to the other consumers: the clock passes the
// visibility timeout (the broker's verdict that `from` is gone), then the
// others consume until each of those messages has reached one of them.
void Run::HandOver(const std::vector<std::string>& ids, size_t from) {
  if (consumers_.size() < 2) {
    handover_status_ = Status::InvalidArgument("a hand-over needs a second consumer");
    return;
  }
  faults_.SetHandingOver(true);
  HandOverUntil(ids, from);
  faults_.SetHandingOver(false);
}

void Run::HandOverUntil(const std::vector<std::string>& ids, size_t from) {
  env_.Advance(o_.visibility_timeout_ms + o_.idle_step_ms);
  std::set<std::string> waiting(ids.begin(), ids.end());
  size_t seen = log_.deliveries().size();
  const int64_t deadline = env_.NowMs() + o_.max_drain_ms;
  IdleStep idle(o_);
  while (!waiting.empty()) {
    bool progressed = false;
    if (Status s = StepAll(&progressed, from); !s.ok()) {
      handover_status_ = s;
      return;
    }
    for (; seen < log_.deliveries().size(); ++seen)
      if (log_.deliveries()[seen].consumer != from) waiting.erase(log_.deliveries()[seen].message_id);
    if (progressed) {
      idle.Reset();
      continue;
    }
    if (env_.NowMs() > deadline) {
      handover_status_ = Status::Permanent("hand-over: " + std::to_string(waiting.size()) +
                                           " message(s) never reached another consumer");
      return;
    }
    env_.Advance(idle.Next());
  }
}

Status Run::Drive(EmbeddedQueue& queue) {
  const int64_t last_publication = w_.publications.empty() ? 0 : w_.publications.back().at_ms;
  const int64_t deadline = w_.start_ms + last_publication + o_.max_drain_ms;
  IdleStep idle(o_);
  for (;;) {
    bool progressed = false;
    const int64_t round_start = wall_->MonotonicMicros();
    IDEM_RETURN_IF_ERROR(StepAll(&progressed));
    if (progressed) {
      busy_us_ += wall_->MonotonicMicros() - round_start;
      idle.Reset();
      continue;
    }
    auto stats = queue.Stats();
    if (!stats.ok()) return stats.status();
    if (stats->ready + stats->delayed + stats->in_flight == 0) return Status::OK();
    if (env_.NowMs() > deadline)
      return Status::Permanent("the queue did not drain within the simulated time limit (" +
                               std::to_string(stats->ready + stats->delayed + stats->in_flight) + " left)");
    env_.Advance(idle.Next());
  }
}

int64_t Run::DuplicateDeliveries() const {
  std::map<std::string, size_t> event_of;
  for (const Publication& p : w_.publications) event_of[p.message_id] = p.event;
  std::map<std::pair<size_t, int>, int64_t> per_attempt;
  for (const Delivery& d : log_.deliveries()) per_attempt[{event_of[d.message_id], d.attempt}]++;
  int64_t dup = 0;
  for (const auto& [k, n] : per_attempt) dup += n - 1;
  return dup;
}

Result<RunReport> Run::Go() {
  IDEM_RETURN_IF_ERROR(Setup());
  auto queue = OpenQueue();
  if (!queue.ok()) return queue.status();
  IDEM_RETURN_IF_ERROR(Publish(**queue));
  IDEM_RETURN_IF_ERROR(AddConsumers());

  const int64_t t0 = wall_->MonotonicMicros();
  IDEM_RETURN_IF_ERROR(Drive(**queue));
  RunReport report;
  report.wall_seconds = static_cast<double>(wall_->MonotonicMicros() - t0) / 1e6;
  report.busy_seconds = static_cast<double>(busy_us_) / 1e6;
  consumers_.clear();  // close their connections before measuring

  auto store = OpenStore();
  if (!store.ok()) return store.status();
  auto damage = Measure(**store, **queue, w_);
  if (!damage.ok()) return damage.status();
  report.damage = *damage;
  if (!w_.incident_payment_id.empty()) {
    auto times = ChargeTimes(**store, w_.incident_payment_id);
    if (!times.ok()) return times.status();
    report.incident_charge_times_ms = std::move(*times);
  }
  report.published = static_cast<int64_t>(w_.publications.size());
  report.deliveries = static_cast<int64_t>(log_.deliveries().size());
  report.duplicate_deliveries = DuplicateDeliveries();
  report.simulated_ms = env_.NowMs() - w_.start_ms;
  report.downstream = downstream_.stats();
  return report;
}

}  // namespace

Result<RunReport> RunScenario(const Workload& workload, const RunOptions& options) {
  if (options.dir.empty()) return Status::InvalidArgument("RunScenario needs a folder (RunOptions::dir)");
  Run run(workload, options);
  return run.Go();
}

}  // namespace idem::payments
