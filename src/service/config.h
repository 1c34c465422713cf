// The configuration of `idem run`: one TOML file naming the broker, the store,
// the optional fast filter, the consumer groups and their handlers.
//
// Every duration carries its unit in the key (`lease_ms`, `window_days`), every
// key has a default except the URLs and the group names, and a key the reader
// does not know is an error: a typo must not silently fall back to a default.
// Errors are InvalidArgument "FILE:LINE:COLUMN: what is wrong; what is expected".
// The user guide (docs/operations.md) lists every key.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "console/console_config.h"
#include "idem/broker.h"
#include "idem/fast_filter.h"
#include "idem/status.h"
#include "idem/store_access.h"
#include "service/handler_config.h"

namespace idem::service {

// A name with the place it was written, for errors found after parsing
// (an unknown handler set is only known once the registry is consulted).
struct Located {
  std::string value;
  std::string where;  // "FILE:LINE:COLUMN"
};

struct ConsumerConfig {
  std::string group;                // required: records are unique per (group, key)
  std::string where;                // where the [[consumer]] table starts
  int workers = 1;                  // threads, each with its own source and store connection; default 1
  size_t batch_size = 100;          // default 100
  int64_t max_linger_ms = 20;       // default 20 ms
  int64_t lease_ms = 60'000;        // default 60 s
  std::vector<int64_t> retry_delays_ms{30'000, 60'000, 300'000, 300'000, 300'000};
  int max_attempts = 5;             // default 5
  // retry_mode = "ordered" | "retry_topics": unset, the broker's default (Kafka:
  // ordered; the embedded queue and RabbitMQ: their delay tier, and "ordered" is refused).
  RetryMode retry_mode = RetryMode::kBrokerDefault;
  std::vector<Located> handler_sets;          // C++ handlers registered by name
  std::vector<DeclaredHandler> handlers;      // [[consumer.handler]]: declarative, one per topic
};

struct RetentionConfig {
  int64_t window_days = 90;                   // records last seen longer ago are deleted; default 90 days
  int64_t sweep_interval_ms = 3'600'000;      // how often the service sweeps; default 1 h (0: never)
  int64_t sweep_batch_rows = 1'000;           // rows per delete statement; default 1000
  std::string where;
};

// [outbox]: the relay that publishes what handlers emitted (docs/outbox.md),
// run inside the service on its own thread, store and broker connections.
struct OutboxConfig {
  bool relay = false;             // run the relay in this process; default false
  int64_t interval_ms = 500;      // wait after a step that found nothing due (or failed); default 500 ms
  int64_t batch = 100;            // rows claimed and published per step; default 100
  int max_attempts = 10;          // publish attempts before a row is DEAD; default 10
  int64_t claim_ms = 30'000;      // a claimed row is due again after this if never marked; default 30 s
  bool per_key_order = false;     // a key's later rows wait for its earlier ones; default false
  std::string where;
};

struct ServiceConfig {
  std::string path;  // the file this came from

  std::string broker_url;                     // required
  int64_t visibility_timeout_ms = 30'000;     // embedded queue lease per poll; default 30 s
  size_t prefetch = 0;                        // RabbitMQ basic.qos / Kafka fetch bound; 0 (default): three of each consumer's batches

  std::string store_url;                      // required
  // Optional SQL script run once at start, after the handler sets created their
  // tables (reference data, demo accounts); it must be safe to run again
  // (CREATE … IF NOT EXISTS, INSERT … ON CONFLICT DO NOTHING).
  std::string setup_sql;
  // false: the runtime may not create tables, so idem's own tables must exist
  // at the current version (`idem schema migrate` or `idem schema print` by a
  // DBA); start-up refuses a store that lacks them, before consuming. Business
  // tables (handler sets, setup_sql) are the configuration's own. Default true.
  bool create_schema = true;

  std::string fast_filter_url;                // optional; empty: no fast filter
  int64_t redis_ttl_ms = 24LL * 3600 * 1000;  // default 24 h
  FilterOutagePolicy outage_policy = FilterOutagePolicy::kClosed;  // default "closed"
  std::string key_prefix = "idem:";           // default "idem:"

  std::string http_listen;                    // "HOST:PORT" for /metrics, /healthz, /readyz; empty: none
  // How long `idem run` retries, at start, a store or broker it cannot reach
  // (then exit 1); 0: no retry. Default 60 s.
  int64_t startup_timeout_ms = 60'000;
  int64_t shutdown_timeout_ms = 30'000;       // first signal → exit; default 30 s
  int64_t abandon_timeout_ms = 5'000;         // second signal → exit; default 5 s
  bool log_decisions = true;                  // one JSON line per message outcome; default true

  RetentionConfig retention;
  console::ConsoleConfig console;             // [console]: the dead-letter console on http_listen; off by default
  OutboxConfig outbox;
  std::vector<StateMachineConfig> state_machines;  // [[state_machine]]: for transition steps
  std::vector<ConsumerConfig> consumers;      // at least one
};

// How the service opens its store: creating and migrating idem's tables, or
// requiring them current (create_schema = false).
inline StoreAccess StoreAccessOf(const ServiceConfig& c) {
  return c.create_schema ? StoreAccess::kCreate : StoreAccess::kCurrentSchema;
}

// Parses `text` as the configuration file `path` (used in errors only).
Result<ServiceConfig> ParseConfig(std::string_view text, const std::string& path);
// Reads and parses the file at `path`.
Result<ServiceConfig> LoadConfig(const std::string& path);

}  // namespace idem::service
