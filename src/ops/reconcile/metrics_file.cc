#include "ops/reconcile/metrics_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace idem::reconcile {
namespace {

class Writer {
 public:
  explicit Writer(std::string ledger) : ledger_(std::move(ledger)) {}
  void Gauge(const char* name, const char* help) {
    out_ += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " gauge\n";
  }
  void Sample(const char* name, double value, const std::string& extra_label = "") {
    char num[64];
    std::snprintf(num, sizeof num, "%.15g", value);
    out_ += std::string(name) + "{ledger=\"" + ledger_ + "\"" + (extra_label.empty() ? "" : "," + extra_label) + "} " +
            num + "\n";
  }
  const std::string& text() const { return out_; }

 private:
  std::string ledger_;  // a validated identifier: nothing to escape
  std::string out_;
};

}  // namespace

std::string MetricsText(const RunFacts& facts) {
  Writer w(facts.ledger);
  w.Gauge("idem_reconcile_last_run_timestamp_seconds", "When the last reconciliation run ended (Unix time).");
  w.Sample("idem_reconcile_last_run_timestamp_seconds", static_cast<double>(facts.finished_ms) / 1000.0);
  w.Gauge("idem_reconcile_last_run_duration_seconds", "How long the last reconciliation run took.");
  w.Sample("idem_reconcile_last_run_duration_seconds", facts.duration_seconds);
  w.Gauge("idem_reconcile_last_run_success", "1 if the last run read the ledger (and applied what it was asked to).");
  w.Sample("idem_reconcile_last_run_success", facts.result ? 1 : 0);
  if (!facts.result) return w.text();

  const ReconcileResult& r = *facts.result;
  const Findings& f = r.findings;
  w.Gauge("idem_reconcile_ledger_entries", "Ledger entries read by the last run, reversal entries included.");
  w.Sample("idem_reconcile_ledger_entries", static_cast<double>(f.entries));
  w.Gauge("idem_reconcile_duplicate_keys", "Business keys applied more than once.");
  w.Sample("idem_reconcile_duplicate_keys", static_cast<double>(f.duplicates.size()));
  w.Gauge("idem_reconcile_extra_copies", "Extra applications of a business key, by state after the last run.");
  for (CopyState s : kAllCopyStates) {
    int64_t n = 0;
    for (const Duplicate& d : f.duplicates)
      for (const ExtraCopy& c : d.extra) n += c.state == s;
    w.Sample("idem_reconcile_extra_copies", static_cast<double>(n), std::string("state=\"") + CopyStateName(s) + "\"");
  }
  w.Gauge("idem_reconcile_conflicts", "Business keys whose entries differ and need a person.");
  w.Sample("idem_reconcile_conflicts", static_cast<double>(f.conflicts.size()));
  w.Gauge("idem_reconcile_statement_mismatches", "Keys that do not match the bank statement, by kind.");
  for (MismatchKind k : {MismatchKind::kMissingInLedger, MismatchKind::kMissingAtBank, MismatchKind::kAmountDiffers}) {
    int64_t n = 0;
    for (const Mismatch& m : f.mismatches) n += m.kind == k;
    w.Sample("idem_reconcile_statement_mismatches", static_cast<double>(n),
             std::string("kind=\"") + MismatchKindName(k) + "\"");
  }
  w.Gauge("idem_reconcile_reversals_written", "Reversal entries the last run wrote.");
  w.Sample("idem_reconcile_reversals_written", static_cast<double>(r.reversed_now));
  w.Gauge("idem_reconcile_unresolved", "Findings of the last run that still need a person (alert when above 0).");
  w.Sample("idem_reconcile_unresolved", static_cast<double>(Unresolved(f)));
  return w.text();
}

Status WriteMetricsFile(const std::string& path, const RunFacts& facts) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << MetricsText(facts);
    out.close();
    if (!out) return Status::IOError("cannot write the metrics file " + tmp + ": " + std::strerror(errno));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    return Status::IOError("cannot move the metrics file into place at " + path + ": " + std::strerror(errno));
  return Status::OK();
}

}  // namespace idem::reconcile
