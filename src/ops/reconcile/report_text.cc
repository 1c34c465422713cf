#include <cstdio>

#include "ops/reconcile/amount.h"
#include "ops/reconcile/report.h"

namespace idem::reconcile {
namespace {

// Keys, accounts and statement fields come from outside: control bytes are
// shown as \xNN so that printing the report cannot drive the terminal.
std::string Shown(std::string_view data) {
  std::string out;
  for (unsigned char c : data) {
    if (c >= 0x20 && c != 0x7f) {
      out += static_cast<char>(c);
      continue;
    }
    char esc[5];
    std::snprintf(esc, sizeof esc, "\\x%02x", c);
    out += esc;
  }
  return out;
}

std::string Plural(int64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string CopyLine(const LedgerSpec& spec, const Duplicate& d, const ExtraCopy& c, const ReportContext& ctx) {
  const std::string back = FormatAmount(-d.amount, spec.amount_decimals);
  std::string line = "    copy " + std::to_string(c.ordinal);
  if (static_cast<size_t>(c.ordinal) <= d.times_ms.size()) line += "  " + ctx.format_time(d.times_ms[c.ordinal - 1]);
  switch (c.state) {
    case CopyState::kOpen:
      return line + "  open: --apply reverses it as " + Shown(c.reversal_key) + " (" + back + ")";
    case CopyState::kReversedNow:
      return line + "  reversed now: " + Shown(c.reversal_key) + " (" + back + ")";
    case CopyState::kReversedBefore:
      return line + "  reversed before: " + Shown(c.reversal_key);
    case CopyState::kHeld:
      return line + "  held: the bank shows this charge too; refund through the bank, not a reversal";
    case CopyState::kHeldBefore:
      return line + "  held before: by " + Shown(c.held_before->operator_name) + " at " +
             ctx.format_time(c.held_before->at_ms) + ", " + Shown(c.held_before->evidence) +
             " (--release-hold " + Shown(KeyText(d.key)) + " lets --apply judge it again)";
    case CopyState::kNotCovered:
      return line + "  not covered: outside the statement's period and not on it; reconcile it with the statement "
                    "of its day";
  }
  return line;
}

std::string MismatchLine(const LedgerSpec& spec, const Mismatch& m) {
  auto amount = [&](const std::optional<int64_t>& a) { return a ? FormatAmount(*a, spec.amount_decimals) : "-"; };
  const char* kind = m.kind == MismatchKind::kMissingInLedger ? "missing in ledger"
                     : m.kind == MismatchKind::kMissingAtBank ? "missing at bank"
                                                              : "amount differs";
  // Columns padded, never cut: a long key still prints whole.
  auto pad = [](std::string text, size_t width) {
    if (text.size() < width) text.append(width - text.size(), ' ');
    return text;
  };
  std::string line = "  " + pad(kind, 18) + " " + pad(Shown(m.key), 24) + " ledger " + pad(amount(m.ledger), 12) +
                     " bank " + pad(amount(m.bank), 12) + " " + Shown(m.bank_time);
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

}  // namespace

std::string TextReport(const LedgerSpec& spec, const ReconcileResult& r, const ReportContext& ctx) {
  const Findings& f = r.findings;
  std::string out = "Reconciliation of " + Describe(spec) + " on " + ctx.dialect + "\n";
  out += "Read " + Plural(f.entries, "ledger entry", "ledger entries") + " (" +
         Plural(f.reversals, "reversal", "reversals") + ")";
  out += ctx.statement.empty() ? "; no bank statement given\n"
                               : "; statement " + ctx.statement + ": " + Plural(ctx.statement_rows, "row", "rows") +
                                     (ctx.period.empty() ? "" : ", compared with entries from " + ctx.period) +
                                     (f.rows_not_covered == 0
                                          ? std::string()
                                          : "; " + Plural(f.rows_not_covered, "row", "rows") +
                                                " outside the period matched no entry (not compared)") +
                                     "\n";
  if (!ctx.apply)
    out += "DRY RUN: nothing was changed (--apply writes the reversals marked open)\n";
  else if (r.reversed_now == 0)
    out += "APPLIED by " + ctx.operator_name + " at " + ctx.format_time(ctx.at_ms) +
           ": nothing left to reverse, nothing was changed\n";
  else
    out += "APPLIED by " + ctx.operator_name + " at " + ctx.format_time(ctx.at_ms) + ": " +
           Plural(r.reversed_now, "reversal", "reversals") + " written, balances restored, audit in " +
           spec.audit_table + "\n";

  int64_t extra = 0, too_much = 0;
  for (const Duplicate& d : f.duplicates) {
    extra += d.copies() - 1;
    too_much += d.amount * (d.copies() - 1);
  }
  out += "\nDuplicates: ";
  if (f.duplicates.empty())
    out += "none\n";
  else
    out += Plural(static_cast<int64_t>(f.duplicates.size()), "key", "keys") + " applied more than once, " +
           Plural(extra, "extra copy", "extra copies") + " of " + FormatAmount(too_much, spec.amount_decimals) + "\n";
  for (const Duplicate& d : f.duplicates) {
    out += "  " + Shown(KeyText(d.key)) + "  account " + Shown(d.account) + "  " +
           FormatAmount(d.amount, spec.amount_decimals) + " x" + std::to_string(d.copies());
    if (d.bank_movements >= 0) out += "  (bank: " + Plural(d.bank_movements, "movement", "movements") + ")";
    out += "\n";
    for (const ExtraCopy& c : d.extra) out += CopyLine(spec, d, c, ctx) + "\n";
  }
  out += "\nConflicts: " + (f.conflicts.empty() ? std::string("none\n") : "\n");
  for (const Conflict& c : f.conflicts) out += "  " + Shown(KeyText(c.key)) + ": " + Shown(c.what) + "\n";
  if (!ctx.statement.empty()) {
    out += "\nAgainst the statement: " +
           (f.mismatches.empty() ? std::string("every key matches\n")
                                 : Plural(static_cast<int64_t>(f.mismatches.size()), "mismatch", "mismatches") + "\n");
    for (const Mismatch& m : f.mismatches) out += MismatchLine(spec, m) + "\n";
  }

  const int64_t open = Unresolved(f);
  const ExitCode code = ExitCodeFor(r);
  out += "\nResult: exit " + std::to_string(code) + ": ";
  if (code == kExitClean)
    out += "clean\n";
  else if (code == kExitRepaired)
    out += "repaired; nothing else needs a person\n";
  else
    out += Plural(open, "finding needs", "findings need") + " a person (docs/operations.md, Reconciliation)\n";
  return out;
}

}  // namespace idem::reconcile
