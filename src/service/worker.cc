#include "service/worker.h"

namespace idem::service {
namespace {

nlohmann::json DecisionFields(const Decision& d, const std::string& worker) {
  nlohmann::json j{{"worker", worker},       {"decision", DecisionName(d.kind)}, {"group", d.consumer_group},
                   {"topic", d.topic},       {"key", d.key},                     {"msg_id", d.message_id},
                   {"attempt", d.attempt},   {"delivery", d.delivery_count},     {"latency_us", d.latency_us}};
  if (!d.reason.empty()) j["reason"] = d.reason;
  if (d.kind == DecisionKind::kRetry) j["rung"] = d.rung;
  if (d.delay_ms) j["delay_ms"] = d.delay_ms;
  return j;
}

}  // namespace

PipelineOptions PipelineOptionsFor(const ConsumerConfig& consumer) {
  PipelineOptions o;
  o.consumer_group = consumer.group;
  o.batch_size = consumer.batch_size;
  o.max_linger_ms = consumer.max_linger_ms;
  o.lease_ms = consumer.lease_ms;
  o.retry.ladder_ms = consumer.retry_delays_ms;
  o.retry.max_attempts = consumer.max_attempts;
  return o;
}

Result<std::unique_ptr<Worker>> Worker::Open(const ServiceConfig& config, const ConsumerConfig& consumer,
                                             std::vector<HandlerSpec> handlers, int index, const Control* control,
                                             Env* env, JsonLog* log) {
  std::unique_ptr<Worker> w(new Worker());
  w->name_ = consumer.group + "#" + std::to_string(index + 1);
  w->group_ = consumer.group;
  w->control_ = control;
  w->log_ = log;
  auto fail = [&](const std::string& what, const Status& s) {
    return Status(s.code() == Status::Code::kInvalidArgument
                      ? Status::InvalidArgument("worker " + w->name_ + ": " + what + ": " + s.message())
                      : Status::Unavailable("worker " + w->name_ + ": " + what + ": " + s.ToString()));
  };

  BrokerOptions bo;
  for (const HandlerSpec& h : handlers) bo.topics.push_back(h.topic);
  bo.visibility_timeout_ms = config.visibility_timeout_ms;
  bo.prefetch = config.prefetch;
  auto broker = OpenBroker(config.broker_url, bo, env);
  if (!broker.ok()) return fail("cannot open the broker", broker.status());
  w->broker_ = std::move(*broker);
  auto store = OpenStore(config.store_url, env);
  if (!store.ok()) return fail("cannot open the store", store.status());
  w->store_ = std::move(*store);

  w->source_ = std::make_unique<AbandoningSource>(w->broker_.get(), control);
  w->pipeline_ = std::make_unique<Pipeline>(w->source_.get(), w->store_.get(), env, PipelineOptionsFor(consumer));
  for (HandlerSpec& h : handlers) {
    const std::string topic = h.topic;
    if (Status s = w->pipeline_->Register(std::move(h)); !s.ok()) return fail("handler for topic " + topic, s);
  }
  if (!config.fast_filter_url.empty()) {
    FastFilterUrlOptions fo;
    fo.key_prefix = config.key_prefix;
    auto filter = OpenFastFilter(config.fast_filter_url, fo, env);
    if (!filter.ok()) return fail("cannot open the fast filter", filter.status());
    w->filter_ = std::move(*filter);
    FastFilterOptions ff;
    ff.ttl_ms = config.redis_ttl_ms;
    ff.outage_policy = config.outage_policy;
    if (Status s = w->pipeline_->SetFastFilter(w->filter_.get(), ff); !s.ok())
      return fail("[fast_filter] ttl_ms", s);
  }
  if (config.log_decisions) {
    Worker* self = w.get();
    w->pipeline_->SetDecisionSink([self](const Decision& d) { self->log_->Info("decision", DecisionFields(d, self->name_)); });
  }
  return w;
}

void Worker::Report(const BatchReport& r) {
  if (!r.status.ok()) {
    ++failed_batches_;
    log_->Error("batch_failed", {{"worker", name_},
                                 {"group", group_},
                                 {"polled", r.polled},
                                 {"released", r.released},
                                 {"error", r.status.ToString()},
                                 {"failed_batches", failed_batches_}});
    return;
  }
  if (r.polled == 0) return;  // an idle poll is not news
  log_->Info("batch", {{"worker", name_},           {"group", group_},          {"polled", r.polled},
                       {"first", r.first},          {"duplicate", r.duplicate}, {"conflict", r.conflict},
                       {"retried", r.retried},      {"parked", r.parked},       {"released", r.released},
                       {"in_flight", r.in_flight},  {"filtered", r.filtered},
                       {"transaction_retries", r.transaction_retries}});
}

void Worker::Run(bool until_idle) {
  log_->Info("worker_started", {{"worker", name_}, {"group", group_}});
  std::string why = "stop requested";
  while (!control_->stop.load() && !control_->abandon.load()) {
    BatchReport r = pipeline_->RunOnce();
    Report(r);
    if (until_idle && r.polled == 0 && r.status.ok()) {
      why = "idle";
      break;
    }
  }
  if (control_->abandon.load()) {
    Status s = source_->AbandonNow();
    log_->Warn("deliveries_abandoned", {{"worker", name_},
                                        {"group", group_},
                                        {"given_back_unsettled", source_->abandoned()},
                                        {"status", s.ok() ? "ok" : s.ToString()}});
    why = "abandoned";
  }
  const DecisionCounters& c = pipeline_->counters();
  log_->Info("worker_stopped", {{"worker", name_},
                                {"group", group_},
                                {"reason", why},
                                {"first", c.first.load()},
                                {"duplicate", c.duplicate.load()},
                                {"failed_batches", failed_batches_}});
}

}  // namespace idem::service
