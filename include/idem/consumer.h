// Consumer: one idem consumer opened from URLs — its source, its store, an
// optional fast filter, and the pipeline wired over them. It is what a program
// that consumes needs instead of three opens and the wiring between them:
//
//   auto consumer = idem::Consumer::Open({"queue.db", "ledger.db"}, options, env);
//   (*consumer)->pipeline().Register(spec);   // then Run or RunOnce
//
// Each URL goes through the wiring table (OpenBroker, OpenStore, OpenFastFilter
// — see those headers for the schemes): an unknown scheme, or one this build
// leaves out, is an InvalidArgument that says what to use or which CMake option
// builds it. Open opens the source, then the store, then the fast filter, and
// returns the first failure; nothing stays open after a failure.
//
// Ownership: the Consumer owns every part; the pipeline is destroyed first.
// The pipeline reads the broker's Source (Broker::source()).
// Thread safety: as Pipeline — one thread drives a Consumer; open several (each
// with its own connections) for parallelism.
// User guide: docs/library.md.
#pragma once

#include <memory>
#include <string>

#include "idem/broker.h"
#include "idem/env.h"
#include "idem/fast_filter.h"
#include "idem/pipeline.h"
#include "idem/status.h"
#include "idem/store.h"

namespace idem {

struct ConsumerUrls {
  std::string source{};     // where messages come from: a queue file path, "amqp://…"
  std::string store{};      // the consumption records and the business tables: a SQLite path, "postgresql://…"
  std::string fast_filter{};  // "redis://…" in front of the store's guard; default "" = none
};

struct ConsumerOptions {
  PipelineOptions pipeline;
  BrokerOptions source;
  FastFilterUrlOptions fast_filter_url;  // its key prefix; used only with ConsumerUrls::fast_filter
  FastFilterOptions fast_filter;         // its TTL and outage policy; likewise
};

class Consumer {
 public:
  // REQUIRES: `env` outlives the consumer.
  static Result<std::unique_ptr<Consumer>> Open(const ConsumerUrls& urls, const ConsumerOptions& options, Env* env);
  ~Consumer();
  Consumer(const Consumer&) = delete;
  Consumer& operator=(const Consumer&) = delete;

  // Register handlers here before the first RunOnce, then drive it.
  Pipeline& pipeline() { return *pipeline_; }
  // The store's own connection: create the business schema through it.
  Store& store() { return *store_; }
  // The broker the source belongs to: its publisher, its dead-letter queue.
  Broker& broker() { return *broker_; }

 private:
  Consumer() = default;

  // Declared in the order they are opened, so they close in reverse.
  std::unique_ptr<Broker> broker_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<FastFilter> fast_filter_;
  std::unique_ptr<Pipeline> pipeline_;
};

}  // namespace idem
