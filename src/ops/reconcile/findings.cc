#include "ops/reconcile/findings.h"

#include <algorithm>
#include <map>
#include <set>

#include "ops/reconcile/amount.h"
#include "ops/reconcile/statement_match.h"

namespace idem::reconcile {
namespace {

using Key = std::vector<std::string>;

// P20260928001:reversal:2 → (P20260928001, 2); nullopt for an ordinary entry.
std::optional<std::pair<std::string, int>> ParseReversalKey(const std::string& first, const std::string& marker) {
  const size_t at = first.rfind(marker);
  if (at == std::string::npos || at == 0) return std::nullopt;
  const std::string digits = first.substr(at + marker.size());
  if (digits.empty() || digits.size() > 6 || digits.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  const int ordinal = std::stoi(digits);
  if (ordinal < 2) return std::nullopt;
  return std::make_pair(first.substr(0, at), ordinal);
}

// A copy the bank moved too is held: the ledger is right, the customer needs
// a refund through the bank — reversing the ledger would hide that. A copy
// the statement does not cover is left for the statement of its day.
void JudgeByStatement(const LedgerSpec& spec, const std::map<Key, std::vector<LedgerEntry>>& groups,
                      const std::vector<StatementRow>& statement, const Period& period, int64_t window_ms,
                      Findings& out) {
  StatementMatch match = MatchStatement(spec, groups, statement, period, window_ms);
  out.mismatches = std::move(match.mismatches);
  out.rows_not_covered = match.rows_not_covered;
  for (Duplicate& d : out.duplicates) {
    const std::vector<BankEvidence>& evidence = match.copies.at(d.key);
    d.bank_movements = static_cast<int>(std::count(evidence.begin(), evidence.end(), BankEvidence::kMatched));
    for (ExtraCopy& c : d.extra) {
      if (c.state != CopyState::kOpen) continue;
      const BankEvidence e = evidence[c.ordinal - 1];
      if (e == BankEvidence::kMatched) c.state = CopyState::kHeld;
      if (e == BankEvidence::kNotCovered) c.state = CopyState::kNotCovered;
    }
  }
}

}  // namespace

const char* CopyStateName(CopyState s) {
  switch (s) {
    case CopyState::kOpen:
      return "open";
    case CopyState::kReversedBefore:
      return "reversed_before";
    case CopyState::kReversedNow:
      return "reversed_now";
    case CopyState::kHeld:
      return "held";
    case CopyState::kHeldBefore:
      return "held_before";
    case CopyState::kNotCovered:
      return "not_covered";
  }
  return "?";
}

const char* MismatchKindName(MismatchKind k) {
  switch (k) {
    case MismatchKind::kMissingInLedger:
      return "missing_in_ledger";
    case MismatchKind::kMissingAtBank:
      return "missing_at_bank";
    case MismatchKind::kAmountDiffers:
      return "amount_differs";
  }
  return "?";
}

std::string KeyText(const std::vector<std::string>& key) {
  std::string out;
  for (size_t i = 0; i < key.size(); ++i) out += (i ? "/" : "") + key[i];
  return out;
}

Findings Analyze(const LedgerSpec& spec, std::vector<LedgerEntry> entries, const std::vector<StatementRow>* statement,
                 const Period& period, int64_t match_window_ms) {
  Findings out;
  out.entries = static_cast<int64_t>(entries.size());
  std::map<Key, std::vector<LedgerEntry>> groups;
  std::map<Key, std::set<int>> reversed;  // original key → ordinals with a reversal entry
  for (LedgerEntry& e : entries) {
    if (auto rev = ParseReversalKey(e.key.front(), spec.reversal_marker)) {
      ++out.reversals;
      Key original = e.key;
      original.front() = rev->first;
      reversed[original].insert(rev->second);
      continue;
    }
    groups[e.key].push_back(std::move(e));
  }

  for (auto& [key, copies] : groups) {
    std::stable_sort(copies.begin(), copies.end(),
                     [](const LedgerEntry& a, const LedgerEntry& b) { return a.time_ms < b.time_ms; });
    if (copies.size() < 2) continue;
    const bool identical = std::all_of(copies.begin(), copies.end(), [&](const LedgerEntry& e) {
      return e.amount == copies.front().amount && e.account == copies.front().account;
    });
    if (!identical) {
      std::string what = std::to_string(copies.size()) + " entries that differ:";
      for (const LedgerEntry& e : copies)
        what += " " + FormatAmount(e.amount, spec.amount_decimals) + " on " + e.account + ";";
      what.back() = '.';
      out.conflicts.push_back({key, what + " Not reversed: decide by hand which ones are right"});
      continue;
    }
    Duplicate d{key, copies.front().account, copies.front().amount, {}, -1, {}};
    if (!spec.time_column.empty())
      for (const LedgerEntry& e : copies) d.times_ms.push_back(e.time_ms);
    std::set<int>& done = reversed[key];
    for (int ordinal = 2; ordinal <= static_cast<int>(copies.size()); ++ordinal) {
      const bool before = done.erase(ordinal) > 0;
      d.extra.push_back({ordinal, key.front() + spec.reversal_marker + std::to_string(ordinal),
                         before ? CopyState::kReversedBefore : CopyState::kOpen, std::nullopt});
    }
    out.duplicates.push_back(std::move(d));
  }
  for (const auto& [key, ordinals] : reversed)
    for (int ordinal : ordinals) {
      out.conflicts.push_back({key, "a reversal of copy " + std::to_string(ordinal) + " (" + key.front() +
                                        spec.reversal_marker + std::to_string(ordinal) +
                                        ") but the ledger does not hold that many copies of the key: check whether "
                                        "an entry was deleted"});
    }

  if (statement) JudgeByStatement(spec, groups, *statement, period, match_window_ms, out);
  return out;
}

}  // namespace idem::reconcile
