#include "service/broker_check.h"

#include "connect/scheme_table.h"
#include "service/service.h"
#include "service/worker.h"

namespace idem::service {

Status CheckBrokers(const ServiceConfig& config, const HandlerRegistry& registry, Env* env) {
  for (const ConsumerConfig& k : config.consumers) {
    auto handlers = HandlersFor(config, k, registry, env);
    if (!handlers.ok()) return handlers.status();
    const std::string what = "group \"" + k.group + "\": broker " + connect::RedactedUrl(config.broker_url);
    auto broker = OpenBroker(config.broker_url, BrokerOptionsFor(config, k, *handlers), env);
    Status s = broker.ok() ? (*broker)->Stats().status() : broker.status();
    if (s.ok()) continue;
    if (s.code() == Status::Code::kInvalidArgument) return Status::InvalidArgument(what + ": " + s.message());
    return Status::Unavailable(what + " cannot be used: " + s.ToString() +
                               ": start it or correct [broker] url, then start again");
  }
  return Status::OK();
}

}  // namespace idem::service
