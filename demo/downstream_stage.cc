#include "demo/downstream_stage.h"

#include "ops/outbox/relay.h"

namespace idem::demo {

Result<std::unique_ptr<DownstreamStage>> DownstreamStage::Open(const std::string& queue_path,
                                                               std::unique_ptr<Store> store, sim::SimEnv* env,
                                                               const payments::ServiceOptions& service,
                                                               int64_t visibility_timeout_ms, size_t batch_size) {
  std::unique_ptr<DownstreamStage> s(new DownstreamStage());
  s->env_ = env;
  s->store_ = std::move(store);
  EmbeddedQueueOptions qo;
  qo.visibility_timeout_ms = visibility_timeout_ms;
  qo.durable_against_power_loss = false;
  auto queue = EmbeddedQueue::Open(queue_path, qo, env);
  if (!queue.ok()) return queue.status();
  s->queue_ = std::move(*queue);
  PipelineOptions po;
  po.consumer_group = "downstream";
  po.batch_size = batch_size;
  po.max_linger_ms = 0;  // the driver moves the clock
  s->pipeline_ = std::make_unique<Pipeline>(s->queue_.get(), s->store_.get(), env, po);
  IDEM_RETURN_IF_ERROR(s->pipeline_->Register(payments::PointsHandler(service)));
  IDEM_RETURN_IF_ERROR(s->pipeline_->Register(payments::NoticeHandler(service)));
  return s;
}

Status DownstreamStage::Drain(int64_t idle_step_ms, int64_t max_ms) {
  outbox::Relay relay(*store_, queue_->publisher());
  const int64_t deadline = env_->NowMs() + max_ms;
  for (;;) {
    auto step = relay.RelayOnce(env_->NowMs());
    if (!step.ok()) return step.status();
    size_t polled = 0;
    for (;;) {
      BatchReport r = pipeline_->RunOnce();
      if (!r.status.ok()) return r.status;
      if (r.polled == 0) break;
      polled += r.polled;
    }
    auto stats = queue_->Stats();
    if (!stats.ok()) return stats.status();
    auto outbox = outbox::ReadOutboxStats(*store_, /*count_sent=*/false);
    if (!outbox.ok()) return outbox.status();
    if (outbox->pending == 0 && stats->ready + stats->delayed + stats->in_flight == 0) return Status::OK();
    if (env_->NowMs() > deadline)
      return Status::Permanent("the outbox and the downstream queue did not drain within the simulated time limit");
    if (step->claimed == 0 && polled == 0) env_->Advance(idle_step_ms);
  }
}

}  // namespace idem::demo
