#include "service/service.h"

#include "service/declarative_handler.h"

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
  return Status::OK();
}

Result<std::unique_ptr<Service>> Service::Open(const ServiceConfig& config, const HandlerRegistry& registry,
                                               Env* env, JsonLog* log, ops::ServiceMetrics* metrics) {
  IDEM_RETURN_IF_ERROR(CheckConfig(config, registry));
  std::unique_ptr<Service> s(new Service());
  s->log_ = log;
  // Tables first, once, before any worker can receive a message for them.
  auto store = OpenStore(config.store_url, env);
  if (!store.ok()) return Status::Unavailable("cannot open the store: " + store.status().ToString());
  std::map<std::string, bool> prepared;
  for (const ConsumerConfig& k : config.consumers)
    for (const Located& name : k.handler_sets) {
      const HandlerSet* set = registry.Find(name.value);
      if (!set->prepare || prepared[name.value]) continue;
      prepared[name.value] = true;
      if (Status st = set->prepare(**store); !st.ok())
        return Status::Unavailable("handler set \"" + name.value + "\" could not create its tables: " + st.ToString());
    }
  for (const ConsumerConfig& k : config.consumers)
    for (int i = 0; i < k.workers; ++i) {
      auto handlers = HandlersFor(config, k, registry, env);
      if (!handlers.ok()) return handlers.status();
      auto w = Worker::Open(config, k, std::move(*handlers), i, &s->control_, env, log, metrics);
      if (!w.ok()) return w.status();
      s->workers_.push_back(std::move(*w));
    }
  return s;
}

Service::~Service() {
  for (std::thread& t : threads_)
    if (t.joinable()) t.join();
}

void Service::Start(bool until_idle) {
  running_ = workers_.size();
  for (auto& w : workers_)
    threads_.emplace_back([this, w = w.get(), until_idle] {
      w->Run(until_idle);
      std::lock_guard<std::mutex> lock(mu_);
      --running_;
      done_cv_.notify_all();
    });
}

bool Service::WaitFor(int64_t timeout_ms) {
  std::unique_lock<std::mutex> lock(mu_);
  return done_cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), [this] { return running_ == 0; });
}

size_t Service::running() const {
  std::lock_guard<std::mutex> lock(mu_);
  return running_;
}

}  // namespace idem::service
