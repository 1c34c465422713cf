#include "service/worker.h"

#include "service/decision_line.h"
#include "service/startup_wait.h"

namespace idem::service {
namespace {

// Times each run of `fn` for idem_handler_duration_seconds, whether it returns or throws.
HandlerFn TimedHandler(HandlerFn fn, std::string group, std::string topic, Env* env, ops::ServiceMetrics* metrics) {
  return [fn = std::move(fn), group = std::move(group), topic = std::move(topic), env,
          metrics](HandlerContext& ctx) -> HandlerResult {
    const int64_t start_us = env->MonotonicMicros();
    auto observe = [&] { metrics->OnHandler(group, topic, static_cast<double>(env->MonotonicMicros() - start_us) / 1e6); };
    try {
      HandlerResult r = fn(ctx);
      observe();
      return r;
    } catch (...) {
      observe();
      throw;  // the pipeline classifies what a handler throws
    }
  };
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

BrokerOptions BrokerOptionsFor(const ServiceConfig& config, const ConsumerConfig& consumer,
                               const std::vector<HandlerSpec>& handlers) {
  BrokerOptions bo;
  // Several groups on one embedded queue share it by topic. A single group takes
  // everything its source holds (a topic without a handler is dead-lettered):
  // RabbitMQ gives each group its own queue and cannot filter by topic.
  if (config.consumers.size() > 1)
    for (const HandlerSpec& h : handlers) bo.topics.push_back(h.topic);
  bo.visibility_timeout_ms = config.visibility_timeout_ms;
  bo.prefetch = config.prefetch ? config.prefetch : PrefetchFor(consumer.batch_size);
  bo.retry_mode = consumer.retry_mode;
  return bo;
}

Result<std::unique_ptr<Worker>> Worker::Open(const ServiceConfig& config, const ConsumerConfig& consumer,
                                             std::vector<HandlerSpec> handlers, int index, const Control* control,
                                             Env* env, JsonLog* log, ops::ServiceMetrics* metrics) {
  std::unique_ptr<Worker> w(new Worker());
  w->name_ = consumer.group + "#" + std::to_string(index + 1);
  w->group_ = consumer.group;
  w->control_ = control;
  w->log_ = log;
  w->metrics_ = metrics;
  w->env_ = env;
  w->log_decisions_ = config.log_decisions;
  auto fail = [&](const std::string& what, const Status& s) {
    return AsStartFailure("worker " + w->name_ + ": " + what, s);
  };

  ConsumerParts parts;
  auto broker = OpenBroker(config.broker_url, BrokerOptionsFor(config, consumer, handlers), env);
  if (!broker.ok()) return fail("cannot open the broker", broker.status());
  parts.broker = std::move(*broker);
  auto store = OpenStore(config.store_url, env, StoreAccessOf(config));
  if (!store.ok()) return fail("cannot open the store", store.status());
  parts.store = std::move(*store);
  ConsumerOptions options;
  options.pipeline = PipelineOptionsFor(consumer);
  if (!config.fast_filter_url.empty()) {
    FastFilterUrlOptions fo;
    fo.key_prefix = config.key_prefix;
    auto filter = OpenFastFilter(config.fast_filter_url, fo, env);
    if (!filter.ok()) return fail("cannot open the fast filter", filter.status());
    parts.fast_filter = std::move(*filter);
    options.fast_filter.ttl_ms = config.redis_ttl_ms;
    options.fast_filter.outage_policy = config.outage_policy;
    w->filter_policy_ = config.outage_policy == FilterOutagePolicy::kOpen ? "open" : "closed";
  }
  w->in_flight_since_ms_ = metrics->InFlightClock(consumer.group);
  parts.decorators.push_back([worker = w.get(), env](Source* below) -> std::unique_ptr<Source> {
    auto source = std::make_unique<AbandoningSource>(below, worker->control_);
    source->SetInFlightClock(worker->in_flight_since_ms_, env);
    worker->source_ = source.get();
    return source;
  });
  auto assembled = Consumer::Assemble(std::move(parts), options, env);
  // Assembling fails only on the fast filter's TTL (the parts are all there).
  if (!assembled.ok()) return fail("[fast_filter] ttl_ms", assembled.status());
  w->consumer_ = std::move(*assembled);
  std::vector<std::string> topics;
  for (const HandlerSpec& h : handlers) topics.push_back(h.topic);
  metrics->DeclareGroup(consumer.group, topics);
  for (HandlerSpec& h : handlers) {
    const std::string topic = h.topic;
    h.fn = TimedHandler(std::move(h.fn), consumer.group, topic, env, metrics);
    if (Status s = w->consumer_->pipeline().Register(std::move(h)); !s.ok()) return fail("handler for topic " + topic, s);
  }
  Worker* self = w.get();
  w->consumer_->pipeline().SetDecisionSink([self](const Decision& d) { self->OnDecision(d); });
  return w;
}

void Worker::OnDecision(const Decision& d) {
  metrics_->OnDecision(d);
  // The pipeline notes an unreachable fast filter in the reason of every decision it shaped.
  if (d.reason.rfind("degraded (", 0) == 0) filter_degraded_ = true;
  if (!log_decisions_) return;
  // One line per message: written straight into a buffer this thread reuses,
  // and out before the pipeline settles the batch, as every line is.
  thread_local std::string line;
  line.clear();
  AppendDecisionLine(&line, log_->Now().text(), d, name_);
  log_->WriteLine(line);
}

void Worker::NoteFilterState(const BatchReport& r) {
  if (filter_policy_.empty() || r.polled == 0 || filter_degraded_ == filter_was_degraded_) return;
  filter_was_degraded_ = filter_degraded_;
  if (filter_degraded_)
    log_->Warn("fast_filter_degraded",
               {{"worker", name_},
                {"group", group_},
                {"policy", filter_policy_},
                {"effect", filter_policy_ == "closed" ? "consumption paused: messages are released with back-off"
                                                      : "the database guard alone decides"}});
  else
    log_->Info("fast_filter_recovered", {{"worker", name_}, {"group", group_}, {"policy", filter_policy_}});
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
    filter_degraded_ = false;
    const int64_t start_us = env_->MonotonicMicros();
    BatchReport r = consumer_->pipeline().RunOnce();
    in_flight_since_ms_->store(0);  // settled, or given back
    const double seconds = static_cast<double>(env_->MonotonicMicros() - start_us) / 1e6;
    if (r.polled > 0 || !r.status.ok()) metrics_->OnBatch(group_, r, seconds, filter_degraded_, filter_policy_);
    if (r.polled > 0 && r.status.ok()) metrics_->OnProgress(group_);
    NoteFilterState(r);
    Report(r);
    if (until_idle && r.polled == 0 && r.status.ok()) {
      why = "idle";
      break;
    }
  }
  if (control_->abandon.load()) {
    Status s = source_->Abandon();
    log_->Warn("deliveries_abandoned", {{"worker", name_},
                                        {"group", group_},
                                        {"given_back_unsettled", source_->abandoned()},
                                        {"status", s.ok() ? "ok" : s.ToString()}});
    why = "abandoned";
  }
  const DecisionCounters& c = consumer_->pipeline().counters();
  log_->Info("worker_stopped", {{"worker", name_},
                                {"group", group_},
                                {"reason", why},
                                {"first", c.first.load()},
                                {"duplicate", c.duplicate.load()},
                                {"failed_batches", failed_batches_}});
}

}  // namespace idem::service
