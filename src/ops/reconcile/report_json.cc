#include <nlohmann/json.hpp>

#include "ops/reconcile/amount.h"
#include "ops/reconcile/report.h"

namespace idem::reconcile {
namespace {

using nlohmann::json;

// The key as an object of column → value, so tools need not split on '/'.
json KeyJson(const LedgerSpec& spec, const std::vector<std::string>& key) {
  json j = json::object();
  for (size_t i = 0; i < key.size() && i < spec.key_columns.size(); ++i) j[spec.key_columns[i]] = key[i];
  return j;
}

// Minor units as integers (exact), and the decimal text people read.
void PutAmount(json& j, const std::string& field, const LedgerSpec& spec, std::optional<int64_t> minor) {
  if (!minor) {
    j[field] = nullptr;
    return;
  }
  j[field] = FormatAmount(*minor, spec.amount_decimals);
  j[field + "_minor"] = *minor;
}

}  // namespace

std::string JsonReport(const LedgerSpec& spec, const ReconcileResult& r, const ReportContext& ctx) {
  const Findings& f = r.findings;
  json duplicates = json::array();
  for (const Duplicate& d : f.duplicates) {
    json j{{"key", KeyJson(spec, d.key)}, {"account", d.account}, {"copies", d.copies()}};
    PutAmount(j, "amount", spec, d.amount);
    if (d.bank_movements >= 0) j["bank_movements"] = d.bank_movements;
    json copies = json::array();
    for (const ExtraCopy& c : d.extra) {
      json cj{{"ordinal", c.ordinal}, {"state", CopyStateName(c.state)}, {"reversal_key", c.reversal_key}};
      if (static_cast<size_t>(c.ordinal) <= d.times_ms.size()) cj["time"] = ctx.format_time(d.times_ms[c.ordinal - 1]);
      if (c.held_before)
        cj["held_before"] = {{"at", ctx.format_time(c.held_before->at_ms)},
                             {"operator", c.held_before->operator_name},
                             {"evidence", c.held_before->evidence}};
      copies.push_back(cj);
    }
    j["extra_copies"] = copies;
    duplicates.push_back(j);
  }
  json conflicts = json::array();
  for (const Conflict& c : f.conflicts) conflicts.push_back({{"key", KeyJson(spec, c.key)}, {"what", c.what}});
  json mismatches = json::array();
  for (const Mismatch& m : f.mismatches) {
    json j{{"kind", MismatchKindName(m.kind)}, {"key", m.key}, {"bank_time", m.bank_time}};
    if (m.line > 0) j["statement_line"] = m.line;
    PutAmount(j, "ledger", spec, m.ledger);
    PutAmount(j, "bank", spec, m.bank);
    mismatches.push_back(j);
  }
  json out{{"ledger", spec.table},
           {"key_columns", spec.key_columns},
           {"dialect", ctx.dialect},
           {"mode", ctx.apply ? "apply" : "dry_run"},
           {"applied", r.applied},
           {"at", ctx.format_time(ctx.at_ms)},
           {"entries", f.entries},
           {"reversal_entries", f.reversals},
           {"statement", ctx.statement.empty() ? json(nullptr) : json(ctx.statement)},
           {"statement_rows", ctx.statement_rows},
           {"statement_period", ctx.period.empty() ? json(nullptr) : json(ctx.period)},
           {"statement_rows_not_covered", f.rows_not_covered},
           {"duplicates", duplicates},
           {"conflicts", conflicts},
           {"mismatches", mismatches},
           {"reversed_now", r.reversed_now},
           {"unresolved", Unresolved(f)},
           {"exit_code", static_cast<int>(ExitCodeFor(r))}};
  if (ctx.apply) out["operator"] = ctx.operator_name;
  // Keys and accounts come from the database and may hold any bytes: replace
  // invalid UTF-8 rather than throw.
  return out.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace idem::reconcile
