// Consumer: one idem consumer — its source, its store, an optional fast
// filter, and the pipeline wired over them. It is what a program that consumes
// needs instead of three opens and the wiring between them:
//
//   auto consumer = idem::Consumer::Open({"queue.db", "ledger.db"}, options, env);
//   (*consumer)->pipeline().Register(spec);   // then Run or RunOnce
//
// Open takes URLs. Each goes through the wiring table (OpenBroker, OpenStore,
// OpenFastFilter — see those headers for the schemes): an unknown scheme, or
// one this build leaves out, is an InvalidArgument that says what to use or
// which CMake option builds it. Open opens the source, then the store, then the
// fast filter, and returns the first failure; nothing stays open after a failure.
//
// Assemble takes parts already opened (or made: a Source of a test's own), and
// the decorators to stack over the source. It is the one place where a
// consumer is wired: the pipeline polls the top decorator, sees through it the
// source's capabilities (acks in the store's transaction, dead letters kept in
// the store: Source::settles_in_store_transaction, Source::parks_in_store), and
// puts the fast filter in front of the guard. Open is Assemble after the opens.
//
// Ownership: the Consumer owns every part; the pipeline is destroyed first,
// then the decorators from the top down, then the fast filter, the store and
// the source.
// Thread safety: as Pipeline — one thread drives a Consumer; open several (each
// with its own connections) for parallelism.
// User guide: docs/library.md.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "idem/broker.h"
#include "idem/env.h"
#include "idem/fast_filter.h"
#include "idem/pipeline.h"
#include "idem/source.h"
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
  BrokerOptions source;                  // Open only
  FastFilterUrlOptions fast_filter_url;  // its key prefix; Open only, with ConsumerUrls::fast_filter
  FastFilterOptions fast_filter;         // its TTL and outage policy; used when there is a fast filter
};

// Wraps the Source below it (not owned; it outlives the decorator) in one that
// changes some of what it does: derive from ForwardingSource, so every
// capability the decorator does not change still reaches the pipeline.
using SourceDecorator = std::function<std::unique_ptr<Source>(Source* below)>;

// What Consumer::Assemble wires; the Consumer takes ownership of all of it.
struct ConsumerParts {
  // Where messages come from: a broker (its source() is polled), or a Source
  // without one (a test's, a simulator's). Exactly one of the two.
  std::unique_ptr<Broker> broker{};
  std::unique_ptr<Source> source{};
  std::unique_ptr<Store> store{};             // required
  std::unique_ptr<FastFilter> fast_filter{};  // optional
  // Stacked over the source in order: the first wraps the source, the last is
  // what the pipeline polls.
  std::vector<SourceDecorator> decorators{};
};

class Consumer {
 public:
  // REQUIRES: `env` outlives the consumer.
  static Result<std::unique_ptr<Consumer>> Open(const ConsumerUrls& urls, const ConsumerOptions& options, Env* env);
  // Wires `parts` with options.pipeline and options.fast_filter. InvalidArgument
  // for a missing store, not exactly one of broker and source, a decorator that
  // returns nothing, or a fast filter TTL shorter than the retry window.
  // REQUIRES: `env` outlives the consumer.
  static Result<std::unique_ptr<Consumer>> Assemble(ConsumerParts parts, const ConsumerOptions& options, Env* env);
  ~Consumer();
  Consumer(const Consumer&) = delete;
  Consumer& operator=(const Consumer&) = delete;

  // Register handlers here before the first RunOnce, then drive it.
  Pipeline& pipeline() { return *pipeline_; }
  // The store's own connection: create the business schema through it.
  Store& store() { return *store_; }
  // The broker the source belongs to: its publisher, its dead-letter queue.
  // REQUIRES: assembled with a broker (an opened Consumer always is).
  Broker& broker() { return *broker_; }
  // What the pipeline polls: the top decorator, or the source itself.
  Source& source() { return *top_; }

 private:
  Consumer() = default;

  // Declared in the order they are opened, so they close in reverse.
  std::unique_ptr<Broker> broker_;
  std::unique_ptr<Source> own_source_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<FastFilter> fast_filter_;
  std::vector<std::unique_ptr<Source>> decorators_;  // bottom first
  Source* top_ = nullptr;
  std::unique_ptr<Pipeline> pipeline_;
};

}  // namespace idem
