// payments_service: the reference payments service as a program — a consumer
// of the payments topics (events.h) with its handlers (handlers.h) behind
// idem's pipeline, on the broker and store given as URLs:
//
//   payments_service [--until-idle] [SOURCE_URL [STORE_URL]]
//     SOURCE_URL    default payments-queue.db (the embedded queue); amqp://… for RabbitMQ;
//                   kafka://HOST:PORT/TOPIC?group=G for Kafka, keyed by account
//     STORE_URL     default payments.db (SQLite); postgresql://… for PostgreSQL
//     --until-idle  stop once a poll comes back empty (a catch-up run, a test)
//
// It creates the payments tables if they are missing and consumes until
// SIGINT/SIGTERM, once the batch in hand is settled. The bank and the notice
// service are the deployment's own: this program only logs what it would send
// them (StandInDownstream); put your clients behind payments::Downstream.
#include <csignal>
#include <cstdio>
#include <string>
#include <string_view>

#include "idem/consumer.h"
#include "payments/stand_in_downstream.h"
#include "payments/handlers.h"
#include "payments/schema.h"

namespace {

volatile std::sig_atomic_t stop_requested = 0;
void RequestStop(int) { stop_requested = 1; }

int Fail(const char* what, const idem::Status& status) {
  std::fprintf(stderr, "payments_service: %s: %s\n", what, status.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  const bool until_idle = argc > 1 && std::string_view(argv[1]) == "--until-idle";
  const int first_url = until_idle ? 2 : 1;
  if (argc > first_url + 2 || (argc > first_url && argv[first_url][0] == '-')) {
    std::fprintf(stderr, "usage: %s [--until-idle] [SOURCE_URL [STORE_URL]]\n", argv[0]);
    return 2;
  }
  const std::string source_url = argc > first_url ? argv[first_url] : "payments-queue.db";
  const std::string store_url = argc > first_url + 1 ? argv[first_url + 1] : "payments.db";
  std::signal(SIGINT, RequestStop);
  std::signal(SIGTERM, RequestStop);

  idem::ConsumerOptions options;
  options.pipeline.consumer_group = "payments";
  // A refund must not overtake the payment it refunds, also while that payment
  // is retried: on Kafka a retry waits in place and holds its key's later
  // events (ordered retries, Kafka's default; docs/retries-and-dlq.md).
  auto consumer = idem::Consumer::Open({source_url, store_url}, options, idem::Env::Default());
  if (!consumer.ok()) return Fail("cannot open the source or the store", consumer.status());
  idem::Status schema = idem::payments::CreateSchema((*consumer)->store(), idem::payments::SchemaVariant::kGuarded);
  if (!schema.ok()) return Fail("cannot create the payments tables", schema);

  auto to_stderr = [](std::string_view line) { std::fprintf(stderr, "%.*s\n", int(line.size()), line.data()); };
  idem::payments::StandInDownstream downstream(to_stderr);
  idem::payments::ServiceOptions service;
  service.downstream = &downstream;
  service.log = [](std::string_view line) { std::fprintf(stderr, "payments: %.*s\n", int(line.size()), line.data()); };
  idem::Pipeline& pipeline = (*consumer)->pipeline();
  idem::Status registered = idem::payments::RegisterPaymentHandlers(pipeline, service);
  if (!registered.ok()) return Fail("cannot register the handlers", registered);

  std::fprintf(stderr, "payments_service: consuming; stop with SIGINT or SIGTERM\n");
  idem::Status run = pipeline.Run([] { return stop_requested != 0; }, until_idle);
  const auto& c = pipeline.counters();
  std::printf("received %lld, applied %lld, duplicates %lld, parked %lld\n", static_cast<long long>(c.received),
              static_cast<long long>(c.first), static_cast<long long>(c.duplicate),
              static_cast<long long>(c.parked));
  return run.ok() ? 0 : Fail("stopped", run);
}
