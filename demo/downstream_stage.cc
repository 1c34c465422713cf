#include "demo/downstream_stage.h"

#include "idem/embedded_queue.h"
#include "ops/outbox/relay.h"

namespace idem::demo {

Result<std::unique_ptr<DownstreamStage>> DownstreamStage::Open(const std::string& queue_path,
                                                               std::unique_ptr<Store> store, sim::SimEnv* env,
                                                               const payments::ServiceOptions& service,
                                                               int64_t visibility_timeout_ms, size_t batch_size) {
  std::unique_ptr<DownstreamStage> s(new DownstreamStage());
  s->env_ = env;
  idem::ConsumerParts parts;
  parts.store = std::move(store);
  EmbeddedQueueOptions qo;
  qo.visibility_timeout_ms = visibility_timeout_ms;
  qo.durable_against_power_loss = false;
  auto queue = EmbeddedQueue::Open(queue_path, qo, env);
  if (!queue.ok()) return queue.status();
  parts.broker = std::move(*queue);
  idem::ConsumerOptions co;
  co.pipeline.consumer_group = "downstream";
  co.pipeline.batch_size = batch_size;
  co.pipeline.max_linger_ms = 0;  // the driver moves the clock
  auto consumer = idem::Consumer::Assemble(std::move(parts), co, env);
  if (!consumer.ok()) return consumer.status();
  s->consumer_ = std::move(*consumer);
  IDEM_RETURN_IF_ERROR(s->consumer_->pipeline().Register(payments::PointsHandler(service)));
  IDEM_RETURN_IF_ERROR(s->consumer_->pipeline().Register(payments::NoticeHandler(service)));
  return s;
}

Status DownstreamStage::Drain(int64_t idle_step_ms, int64_t max_ms) {
  Store& store = consumer_->store();
  Broker& queue = consumer_->broker();
  outbox::Relay relay(store, queue.publisher());
  const int64_t deadline = env_->NowMs() + max_ms;
  for (;;) {
    auto step = relay.RelayOnce(env_->NowMs());
    if (!step.ok()) return step.status();
    size_t polled = 0;
    for (;;) {
      BatchReport r = consumer_->pipeline().RunOnce();
      if (!r.status.ok()) return r.status;
      if (r.polled == 0) break;
      polled += r.polled;
    }
    auto stats = queue.Stats();
    if (!stats.ok()) return stats.status();
    auto outbox = outbox::ReadOutboxStats(store, /*count_sent=*/false);
    if (!outbox.ok()) return outbox.status();
    if (outbox->pending == 0 && stats->ready + stats->delayed + stats->in_flight == 0) return Status::OK();
    if (env_->NowMs() > deadline)
      return Status::Permanent("the outbox and the downstream queue did not drain within the simulated time limit");
    if (step->claimed == 0 && polled == 0) env_->Advance(idle_step_ms);
  }
}

}  // namespace idem::demo
