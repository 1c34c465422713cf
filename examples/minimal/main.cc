// The smallest idem consumer: "pay" messages from a queue, each applied once
// to a ledger table however many copies arrive. Copy it and change the handler.
//
//   idem publish --broker q.db --topic pay --key-fields payment_id < payments.jsonl
//   minimal_consumer q.db ledger.db
//
// Both arguments are URLs (a bare path is the embedded queue or a SQLite file;
// amqp://… or postgresql://… when it links those components: IDEM_COMPONENTS
// in CMakeLists.txt). It runs until the queue is drained, or until
// SIGINT/SIGTERM once the batch in hand is settled.
#include <csignal>
#include <cstdio>

#include "idem/consumer.h"
#include "idem/guards.h"

namespace {

volatile std::sig_atomic_t stop_requested = 0;
void RequestStop(int) { stop_requested = 1; }

// The UNIQUE key is what makes InsertOnce a guard: a second insert of the same
// entry is "already applied", not a second effect.
constexpr const char* kLedgerDdl =
    "CREATE TABLE IF NOT EXISTS ledger ("
    " entry_key TEXT NOT NULL PRIMARY KEY,"  // the idempotency key, e.g. pay:P1
    " payload TEXT NOT NULL)";

int Fail(const char* what, const idem::Status& status) {
  std::fprintf(stderr, "minimal_consumer: %s: %s\n", what, status.ToString().c_str());
  return 1;
}

idem::HandlerResult ApplyPayment(idem::HandlerContext& ctx) {
  // Runs inside the transaction that also commits the consumption record.
  auto outcome = idem::InsertOnce(ctx.tx, "ledger",
                                  {{"entry_key", ctx.idempotency_key}, {"payload", ctx.message.payload}});
  if (!outcome.ok()) return idem::HandlerResult::FromStatus(outcome.status(), "write ledger");
  return idem::HandlerResult::Ok(*outcome == idem::InsertOutcome::kInserted ? "applied" : "already applied");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s QUEUE_URL STORE_URL\n", argv[0]);
    return 2;
  }
  std::signal(SIGINT, RequestStop);
  std::signal(SIGTERM, RequestStop);
  idem::Env* env = idem::Env::Default();

  idem::ConsumerOptions options;
  options.pipeline.consumer_group = "ledger";
  auto consumer = idem::Consumer::Open({argv[1], argv[2]}, options, env);  // the queue, the store
  if (!consumer.ok()) return Fail("cannot open the queue or the store", consumer.status());
  idem::Status ddl = (*consumer)->store().ExecScript(kLedgerDdl);
  if (!ddl.ok()) return Fail("cannot create the ledger", ddl);

  idem::Pipeline& pipeline = (*consumer)->pipeline();
  idem::HandlerSpec pay;
  pay.topic = "pay";
  pay.key.fields = {"payment_id"};  // the same payment sent twice is one key
  pay.fn = ApplyPayment;
  if (idem::Status s = pipeline.Register(std::move(pay)); !s.ok()) return Fail("cannot register", s);

  idem::Status run = pipeline.Run([] { return stop_requested != 0; }, /*until_idle=*/true);
  const auto& c = pipeline.counters();
  std::printf("received %lld, applied %lld, duplicates %lld, parked %lld\n",
              static_cast<long long>(c.received), static_cast<long long>(c.first),
              static_cast<long long>(c.duplicate), static_cast<long long>(c.parked));
  return run.ok() ? 0 : Fail("stopped", run);
}
