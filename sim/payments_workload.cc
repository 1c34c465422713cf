#include "sim/payments_workload.h"

#include <algorithm>
#include <map>
#include <set>
#include <nlohmann/json.hpp>

#include "demo/partition_key.h"
#include "demo/payments_checks.h"
#include "payments/events.h"
#include "payments/handlers.h"
#include "payments/order_states.h"
#include "payments/schema.h"
#include "sim/hostile_payloads.h"
#include "sim/ledger_workload.h"

namespace idem::sim {
namespace {

Rows Select(Store& store, const std::string& sql) {
  auto tx = store.Begin();
  if (!tx.ok()) return {};
  auto rows = (*tx)->Query(sql, {});
  return rows.ok() ? *rows : Rows{};
}

void Duplicates(CheckReport& report, const demo::EffectCounts& counts, const std::string& what) {
  for (const auto& [key, n] : counts)
    if (n > 1)
      report.Fail("no_duplicate_effect",
                  what + " " + demo::ShowEffectKey(key) + " written " + std::to_string(n) + " times");
}

}  // namespace

std::vector<Event> PaymentsWorkload::Events(FaultDice& dice, int count) {
  demo::WorkloadOptions wo;
  wo.seed = dice.env().Random64();
  wo.events = static_cast<size_t>(std::max(count, 10));
  // The business events and their oracle; the simulator brings its own faults,
  // so the cause's publications and fault plan are not used.
  w_ = demo::MakeWorkload(demo::Cause::kProducerResend, wo);
  std::vector<size_t> order(w_.events.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return w_.events[a].at_ms < w_.events[b].at_ms; });

  std::vector<Event> out;
  const std::map<std::string, std::string> accounts = demo::AccountOfOrder(w_);
  auto push = [&](Event e, int business) {
    e.msg.headers[kEventHeader] = std::to_string(out.size());
    e.msg.id = "e" + std::to_string(out.size());
    // Keyed as a payments producer keys them (by account), so the Kafka model
    // keeps each account's events in one partition, in publishing order.
    e.msg.key = demo::KafkaPartitionKey(e.msg.payload, accounts);
    out.push_back(std::move(e));
    business_index_.push_back(business);
  };
  for (size_t i : order) {
    const demo::BusinessEvent& be = w_.events[i];
    Event e;
    e.msg.topic = be.topic;
    e.msg.payload = be.payload;
    e.legit = !be.expect_parked;
    const int own = static_cast<int>(out.size());
    push(e, static_cast<int>(i));
    if (dice.Roll(Fault::kPoisonMessage)) {
      Event poison;
      poison.legit = false;
      poison.msg.topic = be.topic;
      const int64_t variant = dice.env().Range(0, 1 + static_cast<int64_t>(Hostile::kCount));
      if (variant == 0) poison.msg.payload = "{\"payment_id\": ";  // truncated
      else if (variant == 1) poison.msg.payload = "{\"amount_cents\": 5}";  // no key
      else poison.msg.payload = HostilePayload(static_cast<Hostile>(variant - 2), static_cast<int>(out.size()), "amount_cents");
      push(poison, -1);
    }
    if (dice.Roll(Fault::kConflictingPayload)) {
      // Same key, another payload (a batch job re-sent it with a field changed).
      // The business effect is the same, so the oracle holds whichever copy wins.
      auto doc = nlohmann::json::parse(be.payload);
      doc["channel"] = "batch-resend";
      Event twin;
      twin.legit = false;
      twin.msg.topic = be.topic;
      twin.msg.payload = doc.dump();
      // Link the pair by index: a poison message may have been pushed in between.
      twin.conflicts_with = own;
      out[own].conflicts_with = static_cast<int>(out.size());
      push(twin, -1);
    }
  }
  return out;
}

Status PaymentsWorkload::Setup(Store& store, bool protection) {
  // With the guard off, the tables are the incident's: no unique keys behind it.
  IDEM_RETURN_IF_ERROR(payments::CreateSchema(
      store, protection ? payments::SchemaVariant::kGuarded : payments::SchemaVariant::kIncident));
  // Every status change of an order, kept by the database itself, so the
  // regression check sees moves that a later move would hide.
  IDEM_RETURN_IF_ERROR(store.ExecScript(
      "CREATE TABLE sim_order_moves (order_no TEXT NOT NULL, from_status TEXT NOT NULL, to_status TEXT NOT NULL);"
      "CREATE TRIGGER sim_order_moved AFTER UPDATE OF status ON pay_orders WHEN old.status <> new.status "
      "BEGIN INSERT INTO sim_order_moves VALUES (old.order_no, old.status, new.status); END;"));
  return payments::SeedData(store, w_.accounts, w_.skus, w_.orders);
}

std::vector<HandlerSpec> PaymentsWorkload::Handlers(SimEnv& env) {
  // One bank and notice service for the whole run: every consumer incarnation's
  // handlers call the same one (and hold a pointer to it).
  if (!downstream_)
    downstream_ = std::make_unique<demo::SimulatedDownstream>(&env, demo::SimulatedDownstream::Faults{});
  return payments::PaymentHandlers(payments::ServiceOptions{downstream_.get(), nullptr});
}

void PaymentsWorkload::Check(Store& store, const SimBroker& broker, const std::vector<Event>& events,
                             CheckReport& report) {
  // Under reordering, crashes and rebalances the business outcome may differ from
  // the publishing order's (a refund that overtakes its shipment is legal, and the
  // shipment is then refused): the demo and the payments tests check the oracle
  // per cause. Here every invariant must hold whatever order the broker chose.
  for (const char* c : {"no_duplicate_effect", "balance_matches_flows", "no_state_regression", "nothing_lost",
                        "legit_not_blocked", "conflicts_detected"})
    report.Ran(c);

  auto effects = demo::ReadEffectRows(store);
  auto accounts = demo::ReadAccountBalances(store);
  if (!effects.ok() || !accounts.ok()) {
    report.Fail("nothing_lost", "cannot read the payments tables: " +
                                    (effects.ok() ? accounts.status() : effects.status()).ToString());
    return;
  }
  Duplicates(report, effects->flows, "ledger flow");
  Duplicates(report, effects->points, "points grant");
  Duplicates(report, effects->moves, "stock move for order");
  Duplicates(report, effects->notices, "notice");
  for (const demo::AccountBalance& a : *accounts)
    if (!a.Balanced())
      report.Fail("balance_matches_flows", "user " + a.user_id + " balance " + std::to_string(a.balance_cents) +
                                               " but opening + flows = " +
                                               std::to_string(a.opening_cents + a.flows_cents));

  const std::set<std::pair<std::string, std::string>> legal{{payments::kWaitPay, payments::kPaid},
                                                            {payments::kPaid, payments::kShipped},
                                                            {payments::kShipped, payments::kFinished},
                                                            {payments::kPaid, payments::kRefunded}};
  for (const Row& r : Select(store, "SELECT order_no, from_status, to_status FROM sim_order_moves"))
    if (!legal.count({AsText(r[1]), AsText(r[2])}))
      report.Fail("no_state_regression", "order " + AsText(r[0]) + " moved " + AsText(r[1]) + " -> " + AsText(r[2]));

  const auto parked = ParkedReasons(broker);
  auto reason_of = [&](size_t i) -> const std::string* {
    auto it = parked.find(static_cast<int>(i));
    return it == parked.end() ? nullptr : &it->second;
  };
  // A state-only event counts as applied: the move log judges it.
  auto applied = [&](const demo::BusinessEvent& be) { return effects->Applied(be); };
  auto is_conflict = [](const std::string* reason) {
    return reason && reason->find("different payload") != std::string::npos;
  };

  int64_t parked_unapplied_payments = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    const Event& e = events[i];
    const std::string* reason = reason_of(i);
    const std::string name = "event " + std::to_string(i) + " (" + e.msg.topic + ")";
    if (e.conflicts_with >= 0) {
      const std::string* twin = reason_of(static_cast<size_t>(e.conflicts_with));
      // One copy of the pair must be parked as a conflict — or, if the first copy
      // failed for good, both are parked for a person to decide.
      if (!is_conflict(reason) && !is_conflict(twin) && !(reason && twin))
        report.Fail("conflicts_detected", name + ": same key, different payload, and no copy parked as a conflict");
    }
    const int b = business_index_[i];
    if (b < 0) {
      if (e.conflicts_with < 0 && !reason) report.Fail("nothing_lost", name + " is poison but not in the terminal queue");
      continue;
    }
    const demo::BusinessEvent& be = w_.events[static_cast<size_t>(b)];
    if (is_conflict(reason) && e.conflicts_with < 0)
      report.Fail("legit_not_blocked", name + " was parked as a conflict but no other payload shares its key");
    if (be.topic == std::string(payments::kTopicPaySuccess) && reason && !applied(be)) parked_unapplied_payments++;
    if (applied(be) || reason) continue;
    if (e.conflicts_with >= 0 && is_conflict(reason_of(static_cast<size_t>(e.conflicts_with)))) continue;
    report.Fail("nothing_lost", name + " (" + be.key + ") was neither applied nor parked with a reason");
  }

  // The bank is outside the transaction: a debit confirmed by an attempt that
  // then rolled back stays confirmed (the retry reuses the key, so the bank
  // charges once). Every confirmed debit is in the ledger, or its message is in
  // the terminal queue for reconciliation — never a debit the service forgot.
  const int64_t ledger = static_cast<int64_t>(
      Select(store, "SELECT 1 FROM pay_account_flows WHERE type = 'PAY_DEDUCT'").size());
  const int64_t charged = downstream_ ? downstream_->stats().debits_charged : ledger;
  if (charged < ledger || charged > ledger + parked_unapplied_payments)
    report.Fail("no_duplicate_effect", "the bank charged " + std::to_string(charged) + " payments; the ledger holds " +
                                           std::to_string(ledger) + " and " + std::to_string(parked_unapplied_payments) +
                                           " unapplied payments are parked");
}

}  // namespace idem::sim
