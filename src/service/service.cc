#include "service/service.h"

#include "service/broker_check.h"
#include "service/declarative_handler.h"
#include "service/declared_schema_check.h"
#include "service/startup_wait.h"

#include <algorithm>
#include <chrono>
#include <map>

namespace idem::service {

Result<std::vector<HandlerSpec>> HandlersFor(const ServiceConfig& config, const ConsumerConfig& consumer,
                                             const HandlerRegistry& registry, Env* env) {
  std::vector<HandlerSpec> out;
  for (const Located& name : consumer.handler_sets) {
    const HandlerSet* set = registry.Find(name.value);
    if (!set)
      return Status::InvalidArgument(name.where + ": no handler set named \"" + name.value +
                                     "\" in this program; it has: " + registry.Names());
    auto made = set->make(env);
    if (!made.ok())
      return Status::InvalidArgument(name.where + ": handler set \"" + name.value + "\": " + made.status().message());
    for (HandlerSpec& h : *made) out.push_back(std::move(h));
  }
  for (const DeclaredHandler& d : consumer.handlers) {
    auto h = MakeDeclaredHandler(d, config.state_machines);
    if (!h.ok()) return h.status();
    out.push_back(std::move(*h));
  }
  return out;
}

Status CheckConfig(const ServiceConfig& config, const HandlerRegistry& registry) {
  std::map<std::string, std::string> topic_owner;  // topic → group: the embedded queue hands a message to one group
  for (const ConsumerConfig& k : config.consumers) {
    auto handlers = HandlersFor(config, k, registry, Env::Default());
    if (!handlers.ok()) return handlers.status();
    for (const HandlerSpec& h : *handlers) {
      auto [it, fresh] = topic_owner.emplace(h.topic, k.group);
      if (!fresh)
        return Status::InvalidArgument(k.where + ": topic \"" + h.topic + "\" has a handler in group \"" +
                                       it->second + "\" already" +
                                       (it->second == k.group ? " (two handler sets declare it)" : "") +
                                       ": one handler per topic");
    }
    const PipelineOptions o = PipelineOptionsFor(k);
    if (std::string why = o.retry.Validate(); !why.empty())
      return Status::InvalidArgument(k.where + ": group \"" + k.group + "\": " + why);
    if (!config.fast_filter_url.empty() && config.redis_ttl_ms < o.retry.RetryWindowMs() + o.lease_ms)
      return Status::InvalidArgument(config.path + ": [fast_filter] ttl_ms = " + std::to_string(config.redis_ttl_ms) +
                                     " is shorter than group \"" + k.group + "\"'s retry window plus lease (" +
                                     std::to_string(o.retry.RetryWindowMs() + o.lease_ms) +
                                     " ms): raise ttl_ms or shorten retry_delays_ms");
  }
  const int64_t longest = LongestRedeliveryWindowMs(config);
  if (SweepOptionsFor(config.retention).window_ms < longest)
    return Status::InvalidArgument(
        (config.retention.where.empty() ? config.path : config.retention.where) + ": [retention] window_days = " +
        std::to_string(config.retention.window_days) + " is shorter than the longest redelivery window (" +
        std::to_string(longest) + " ms: every retry delay + the lease + the fast filter's ttl_ms): raise window_days");
  return Status::OK();
}

int64_t LongestRedeliveryWindowMs(const ServiceConfig& config) {
  int64_t longest = 0;
  for (const ConsumerConfig& k : config.consumers) {
    int64_t delays = 0;
    for (int64_t d : k.retry_delays_ms) delays += d;
    const PipelineOptions o = PipelineOptionsFor(k);
    longest = std::max(longest, std::max(delays, o.retry.RetryWindowMs()) + k.lease_ms);
  }
  return longest + (config.fast_filter_url.empty() ? 0 : config.redis_ttl_ms);
}

ops::SweepOptions SweepOptionsFor(const RetentionConfig& r) {
  ops::SweepOptions o;
  o.window_ms = r.window_days * 24 * 3600 * 1000;
  o.interval_ms = r.sweep_interval_ms;
  o.batch_rows = r.sweep_batch_rows;
  return o;
}

Result<std::unique_ptr<Service>> Service::Open(const ServiceConfig& config, const HandlerRegistry& registry,
                                               Env* env, JsonLog* log, ops::ServiceMetrics* metrics) {
  IDEM_RETURN_IF_ERROR(CheckConfig(config, registry));
  std::unique_ptr<Service> s(new Service());
  s->log_ = log;
  s->env_ = env;
  s->metrics_ = metrics;
  // Tables first, once, before any worker can receive a message for them.
  auto store = OpenStore(config.store_url, env, StoreAccessOf(config));
  if (!store.ok()) return AsStartFailure("cannot open the store", store.status());
  std::map<std::string, bool> prepared;
  for (const ConsumerConfig& k : config.consumers)
    for (const Located& name : k.handler_sets) {
      const HandlerSet* set = registry.Find(name.value);
      if (!set->prepare || prepared[name.value]) continue;
      prepared[name.value] = true;
      if (Status st = set->prepare(**store); !st.ok())
        return AsStartFailure("handler set \"" + name.value + "\" could not create its tables", st);
    }
  if (!config.setup_sql.empty())
    if (Status st = (*store)->ExecScript(config.setup_sql); !st.ok())
      return AsStartFailure(config.path + ": [store] setup_sql failed", st);
  // Before any worker can take a message: a step naming a table or a column
  // the store lacks would park every message it sees.
  IDEM_RETURN_IF_ERROR(CheckDeclaredSchema(config, **store));
  IDEM_RETURN_IF_ERROR(CheckBrokers(config, registry, env));
  if (config.retention.sweep_interval_ms > 0) {
    auto sweep_store = OpenStore(config.store_url, env, StoreAccessOf(config));
    if (!sweep_store.ok()) return AsStartFailure("cannot open the store for retention", sweep_store.status());
    s->sweep_store_ = std::move(*sweep_store);
    auto sweeper = ops::Sweeper::Create(s->sweep_store_.get(), SweepOptionsFor(config.retention),
                                        LongestRedeliveryWindowMs(config));
    if (!sweeper.ok()) return sweeper.status();
    s->sweeper_.emplace(std::move(*sweeper));
  }
  for (const ConsumerConfig& k : config.consumers)
    for (int i = 0; i < k.workers; ++i) {
      auto handlers = HandlersFor(config, k, registry, env);
      if (!handlers.ok()) return handlers.status();
      auto w = Worker::Open(config, k, std::move(*handlers), i, &s->control_, env, log, metrics);
      if (!w.ok()) return w.status();
      s->workers_.push_back(std::move(*w));
    }
  if (config.outbox.relay) {
    auto relay = OutboxRelayRunner::Open(config, &s->control_, env, log, metrics);
    if (!relay.ok()) return relay.status();
    s->relay_ = std::move(*relay);
  }
  return s;
}

Service::~Service() {
  for (std::thread& t : threads_)
    if (t.joinable()) t.join();
}

void Service::Start(bool until_idle) {
  running_ = workers_.size() + (relay_ ? 1 : 0);
  auto ended = [this] {
    std::lock_guard<std::mutex> lock(mu_);
    --running_;
    done_cv_.notify_all();
  };
  for (auto& w : workers_)
    threads_.emplace_back([w = w.get(), until_idle, ended] {
      w->Run(until_idle);
      ended();
    });
  if (relay_)
    threads_.emplace_back([this, until_idle, ended] {
      relay_->Run(until_idle, [this] { return running() == 1; });  // only the relay itself is left
      ended();
    });
}

bool Service::WaitFor(int64_t timeout_ms) {
  std::unique_lock<std::mutex> lock(mu_);
  return done_cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), [this] { return running_ == 0; });
}

void Service::MaintainIfDue() {
  if (!sweeper_ || control_.stop.load()) return;
  const ops::SweepStep step = sweeper_->RunIfDue(env_->NowMs());
  if (!step.ran) return;
  if (step.deleted > 0) metrics_->OnSweep(step.deleted);
  if (!step.status.ok())
    log_->Error("sweep_failed", {{"error", step.status.ToString()}, {"next_due_ms", sweeper_->next_due_ms()}});
  else if (step.pass_done)
    log_->Info("sweep", {{"deleted", step.pass_deleted},
                         {"last_seen_before_ms", step.cutoff_ms},
                         {"window_days", sweeper_->options().window_ms / (24 * 3600 * 1000)},
                         {"next_due_ms", sweeper_->next_due_ms()}});
}

size_t Service::running() const {
  std::lock_guard<std::mutex> lock(mu_);
  return running_;
}

}  // namespace idem::service
