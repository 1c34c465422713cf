#include "ops/reconcile/decisions.h"

#include <algorithm>

#include "ops/reconcile/rewrap_status.h"
#include "store/schema/schema.h"

namespace idem::reconcile {
namespace {

std::string Times(int n) { return std::to_string(n) + (n == 1 ? " time" : " times"); }

std::string Where(const EvidenceSource& source) {
  if (source.statement.empty()) return "no statement was given";
  return "statement " + source.statement + (source.period.empty() ? "" : " (" + source.period + ")");
}

}  // namespace

Result<Holds> ReadHolds(SqlTx& tx, const LedgerSpec& spec, const DecisionsSql& sql) {
  Holds holds;
  auto exists = schema::HasTable(tx, spec.decisions_table);
  if (!exists.ok())
    return Rewrap(exists.status(), "cannot look for the decisions table " + spec.decisions_table + ": " +
                                       exists.status().message());
  if (!*exists) return holds;
  auto rows = tx.Query(sql.select_holds, {spec.table});
  if (!rows.ok())
    return Rewrap(rows.status(), "cannot read the earlier decisions in " + spec.decisions_table + ": " +
                                     rows.status().message() + " (nothing was changed)");
  // Oldest first; in one run a release is written before a new hold.
  std::stable_sort(rows->begin(), rows->end(), [](const Row& a, const Row& b) {
    const int64_t at_a = AsInt(a[0]), at_b = AsInt(b[0]);
    if (at_a != at_b) return at_a < at_b;
    return AsText(a[4]) == "released" && AsText(b[4]) != "released";
  });
  for (const Row& r : *rows) {
    auto& copies = holds[AsText(r[2])];
    const int ordinal = static_cast<int>(AsInt(r[3]));
    if (AsText(r[4]) == "released")
      copies.erase(ordinal);
    else
      copies[ordinal] = {AsInt(r[0]), AsText(r[1]), AsText(r[5])};
  }
  return holds;
}

std::vector<ReleasedCopy> ApplyHolds(const Holds& holds, const std::vector<std::string>& released_keys,
                                     Findings& findings, std::vector<std::string>* unknown) {
  std::vector<ReleasedCopy> released;
  std::vector<bool> used(released_keys.size(), false);
  for (Duplicate& d : findings.duplicates) {
    const std::string text = KeyText(d.key);
    auto held = holds.find(text);
    if (held == holds.end()) continue;
    bool release = false;
    for (size_t i = 0; i < released_keys.size(); ++i)
      if (released_keys[i] == text || released_keys[i] == d.key.front()) release = used[i] = true;
    for (ExtraCopy& c : d.extra) {
      auto hold = held->second.find(c.ordinal);
      if (hold == held->second.end() || c.state == CopyState::kReversedBefore) continue;
      if (release) {
        released.push_back({d.key, c.ordinal, hold->second});
        continue;
      }
      c.state = CopyState::kHeldBefore;
      c.held_before = hold->second;
    }
  }
  for (size_t i = 0; i < released_keys.size(); ++i)
    if (!used[i]) unknown->push_back(released_keys[i]);
  return released;
}

Status RecordDecisions(SqlTx& tx, const LedgerSpec& spec, const DecisionsSql& sql, const Actor& actor,
                       const EvidenceSource& source, const std::vector<ReleasedCopy>& released,
                       const Findings& findings) {
  auto record = [&](const std::vector<std::string>& key, int ordinal, const char* decision, int bank_movements,
                    const std::string& evidence) -> Status {
    auto written = tx.Exec(sql.insert, {actor.now_ms, actor.name, spec.table, KeyText(key), int64_t{ordinal},
                                        std::string(decision), int64_t{bank_movements}, source.statement,
                                        source.period, evidence});
    if (!written.ok())
      return Rewrap(written.status(), "cannot record the decision about copy " + std::to_string(ordinal) + " of " +
                                          KeyText(key) + " in " + spec.decisions_table + ": " +
                                          written.status().message() + " (nothing was changed)");
    return Status::OK();
  };
  for (const ReleasedCopy& r : released)
    IDEM_RETURN_IF_ERROR(record(r.key, r.ordinal, "released", -1,
                                "released by " + actor.name + (actor.reason.empty() ? "" : " (" + actor.reason + ")") +
                                    "; it was held because " + r.hold.evidence));
  for (const Duplicate& d : findings.duplicates)
    for (const ExtraCopy& c : d.extra) {
      if (c.state == CopyState::kHeld)
        IDEM_RETURN_IF_ERROR(record(d.key, c.ordinal, "held", d.bank_movements,
                                    "the bank moved it " + Times(d.bank_movements) + " in " + Where(source) +
                                        ", the ledger has it " + Times(d.copies()) +
                                        ": this copy is the bank's charge too; refund through the bank, not a "
                                        "reversal"));
      if (c.state == CopyState::kReversedNow)
        IDEM_RETURN_IF_ERROR(record(
            d.key, c.ordinal, "reversed", d.bank_movements,
            (d.bank_movements < 0 ? "a duplicate application (" + Where(source) + ")"
                                  : "the bank moved it " + Times(d.bank_movements) + " in " + Where(source) +
                                        ", the ledger " + Times(d.copies())) +
                ": reversed as " + c.reversal_key));
    }
  return Status::OK();
}

}  // namespace idem::reconcile
