// The openers of the optional backends, one symbol each, defined by the
// backend's own library (its *_opener.cc) and read by this library's tables.
//
// idem::connect links no optional backend: a program that links
// idem::postgres gets postgresql:// URLs, one that does not never loads libpq.
// The tables refer to these symbols weakly (open_store.cc, open_broker.cc,
// open_fast_filter.cc): an opener the program does not link is null, and its
// URLs get an error naming the component to link. A static link drops an
// archive member nothing refers to, so each backend's target carries the link
// option --undefined=<its symbol> (idem_backend in
// cmake/IdemModule.cmake); that is what pulls its opener in.
#pragma once

#include "connect/known_schemes.h"

extern "C" {
extern const idem::connect::StoreOpener idem_open_postgres_store;
extern const idem::connect::StoreOpener idem_open_mysql_store;
extern const idem::connect::BrokerOpener idem_open_rabbitmq_broker;
extern const idem::connect::BrokerOpener idem_open_kafka_broker;
extern const idem::connect::FastFilterOpener idem_open_redis_filter;
}

namespace idem::connect {

// The opener of a server store (PostgreSQL, MySQL): kCreate creates idem's
// tables when they are missing; kExisting leaves a store without them alone.
template <class Options, Result<std::unique_ptr<Store>> (*Open)(const std::string&, const Options&, Env*)>
Result<std::unique_ptr<Store>> OpenServerStoreUrl(const std::string& url, Env* env, StoreAccess access) {
  Options options;
  options.access = access;
  return Open(url, options, env);
}

// Ordered retries hold a key's later messages in the consumer, which only a
// partitioned log lets it do; the queues retry through their delay tier.
inline Status RefuseOrderedRetries(const BrokerOptions& options, const char* broker) {
  if (options.retry_mode != RetryMode::kOrdered) return Status::OK();
  return Status::InvalidArgument(std::string("retry_mode \"ordered\" needs a Kafka broker: ") + broker +
                                 " retries through its delay tier, where a key's later messages can overtake a "
                                 "retried one; leave retry_mode unset (or \"retry_topics\") for this broker");
}

}  // namespace idem::connect

// The opener `symbol` holds, or null when the program does not link its
// backend. Only for the names above, after `#pragma weak` of them.
#define IDEM_LINKED_OPENER(symbol) (&(symbol) == nullptr ? nullptr : (symbol))
