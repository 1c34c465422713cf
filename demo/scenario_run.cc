#include "demo/scenario_run.h"

#include <algorithm>
#include <set>

#include "idem/embedded_queue.h"
#include "demo/consumer_turns.h"
#include "demo/downstream_stage.h"
#include "demo/run_parts.h"
#include "sim/sim_env.h"

namespace idem::demo {
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

class Run final : public detail::ConsumerTurns {
 public:
  Run(const Workload& w, const RunOptions& o)
      : ConsumerTurns(&w.faults),
        w_(w),
        o_(o),
        env_(w.seed ^ 0x5eed5eed5eedULL, w.start_ms),
        wall_(o.wall_clock ? o.wall_clock : Env::Default()),
        downstream_(&env_, w.faults.downstream) {}

  Result<RunReport> Go();

 private:
  std::string QueuePath() const { return o_.dir + "/queue.db"; }
  Result<std::unique_ptr<EmbeddedQueue>> OpenQueue() {
    EmbeddedQueueOptions qo;
    qo.visibility_timeout_ms = o_.visibility_timeout_ms;
    qo.durable_against_power_loss = false;
    return EmbeddedQueue::Open(QueuePath(), qo, &env_);
  }
  Status Publish(EmbeddedQueue& queue);
  Status AddConsumers();
  Status Drive(EmbeddedQueue& queue);
  Status HandOverUntil(const std::vector<std::string>& ids, size_t from) override;
  Status DeliverDownstream();

  const Workload& w_;
  const RunOptions& o_;
  sim::SimEnv env_;
  Env* wall_;  // real time: wall and busy seconds, and the Redis key prefix of a run
  int64_t busy_us_ = 0;
  DeliveryLog log_;
  SimulatedDownstream downstream_;
};

Status Run::Publish(EmbeddedQueue& queue) {
  for (const Publication& p : w_.publications) {
    Message m = detail::PublicationMessage(w_, p);
    // Delayed delivery stands in for the producer publishing at that moment.
    auto r = queue.Publish(m, p.at_ms);
    if (!r.ok()) return r.status();
  }
  return Status::OK();
}

Status Run::AddConsumers() {
  detail::ConsumerParts parts;
  parts.env = &env_;
  parts.downstream = &downstream_;
  parts.faults = &faults_;
  parts.log = &log_;
  parts.run_id = detail::NewRunId(wall_);
  parts.max_linger_ms = 0;  // the driver moves the clock; a consumer must not wait on it
  parts.downstream_via_outbox = o_.protection;
  for (size_t i = 0; i < w_.consumers; ++i) {
    auto queue = OpenQueue();
    if (!queue.ok()) return queue.status();
    auto c = detail::MakeConsumer(o_, std::move(*queue), i, parts);
    if (!c.ok()) return c.status();
    consumers_.push_back(std::move(*c));
  }
  return Status::OK();
}

// The messages `from` held go to the other consumers: the clock passes the
// visibility timeout (the broker's verdict that `from` is gone), then the
// others consume until each of those messages has reached one of them.
Status Run::HandOverUntil(const std::vector<std::string>& ids, size_t from) {
  env_.Advance(o_.visibility_timeout_ms + o_.idle_step_ms);
  detail::HandOverWait wait(ids, from, log_);
  const int64_t deadline = env_.NowMs() + o_.max_drain_ms;
  IdleStep idle(o_);
  while (!wait.Done()) {
    bool progressed = false;
    IDEM_RETURN_IF_ERROR(StepAll(&progressed, from));
    if (progressed) {
      idle.Reset();
      continue;
    }
    if (env_.NowMs() > deadline)
      return Status::Permanent("hand-over: " + std::to_string(wait.left()) +
                               " message(s) never reached another consumer");
    env_.Advance(idle.Next());
  }
  return Status::OK();
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

// pay.success emitted the points grants and notices through the outbox: relay
// and apply them, so the run is measured with all of its effects.
Status Run::DeliverDownstream() {
  auto store = detail::OpenRunStore(o_, &env_);
  if (!store.ok()) return store.status();
  auto stage = DownstreamStage::Open(o_.dir + "/downstream.db", std::move(*store), &env_,
                                     payments::ServiceOptions{&downstream_, o_.service_log}, o_.visibility_timeout_ms,
                                     o_.batch_size);
  if (!stage.ok()) return stage.status();
  return (*stage)->Drain(o_.idle_step_ms, o_.max_drain_ms);
}

Result<RunReport> Run::Go() {
  IDEM_RETURN_IF_ERROR(detail::PrepareStore(w_, o_, &env_));
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
  if (o_.protection) IDEM_RETURN_IF_ERROR(DeliverDownstream());

  IDEM_RETURN_IF_ERROR(detail::MeasureInto(w_, o_, &env_, **queue, &report));
  report.published = static_cast<int64_t>(w_.publications.size());
  report.deliveries = static_cast<int64_t>(log_.deliveries().size());
  report.duplicate_deliveries = detail::DuplicateDeliveries(w_, log_);
  report.simulated_ms = env_.NowMs() - w_.start_ms;
  report.downstream = downstream_.stats();
  report.downstream_via_outbox = o_.protection;
  return report;
}

}  // namespace

Result<RunReport> RunScenario(const Workload& workload, const RunOptions& options) {
  if (options.dir.empty()) return Status::InvalidArgument("RunScenario needs a folder (RunOptions::dir)");
  if (!options.broker_url.empty()) return detail::RunOnBroker(workload, options);
  Run run(workload, options);
  return run.Go();
}

}  // namespace idem::demo
