// The reconciliation report: text a person reads at a glance, or one JSON
// document for tools. Both say the same things in the same order.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "idem/sql.h"
#include "ops/reconcile/reconcile.h"

namespace idem::reconcile {

struct ReportContext {
  std::string dialect = "sqlite";  // SqlDialect::Name() of the store
  std::string statement;  // the statement file, "" without one
  std::string period;     // "2026-09-28T00:00:00.000Z to 2026-09-29T00:00:00.000Z", "" for all time
  int64_t statement_rows = 0;
  bool apply = false;
  std::string operator_name;
  int64_t at_ms = 0;
  std::function<std::string(int64_t)> format_time;  // ms since the epoch → text
};

std::string TextReport(const LedgerSpec& spec, const ReconcileResult& result, const ReportContext& ctx);
std::string JsonReport(const LedgerSpec& spec, const ReconcileResult& result, const ReportContext& ctx);

}  // namespace idem::reconcile
