#include "ops/reconcile/findings.h"

#include <algorithm>
#include <map>
#include <set>

#include "ops/reconcile/amount.h"

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

int64_t InBankSign(const LedgerSpec& spec, int64_t ledger_amount) {
  return spec.bank_sign == BankSign::kOpposite ? -ledger_amount : ledger_amount;
}

struct BankTotal {
  int64_t sum = 0;
  int count = 0;
  std::string first_time;
};

void CompareWithStatement(const LedgerSpec& spec, const std::map<Key, std::vector<LedgerEntry>>& groups,
                          const std::vector<StatementRow>& statement, const Period& period, Findings& out) {
  std::map<std::string, BankTotal> bank;
  for (const StatementRow& r : statement) {
    BankTotal& t = bank[r.key];
    if (t.count++ == 0) t.first_time = r.time;
    t.sum += r.amount;
  }
  // Each key's effect once: its copies are duplicates, not extra money.
  std::map<std::string, int64_t> ledger;
  for (const auto& [key, entries] : groups)
    if (period.Contains(entries.front().time_ms)) ledger[key.front()] += InBankSign(spec, entries.front().amount);

  for (const auto& [key, net] : ledger) {
    auto b = bank.find(key);
    if (b == bank.end())
      out.mismatches.push_back({MismatchKind::kMissingAtBank, key, net, std::nullopt, ""});
    else if (b->second.sum != net)
      out.mismatches.push_back({MismatchKind::kAmountDiffers, key, net, b->second.sum, b->second.first_time});
  }
  for (const auto& [key, total] : bank)
    if (!ledger.count(key))
      out.mismatches.push_back({MismatchKind::kMissingInLedger, key, std::nullopt, total.sum, total.first_time});
  std::sort(out.mismatches.begin(), out.mismatches.end(),
            [](const Mismatch& a, const Mismatch& b) { return a.key < b.key; });

  // The bank charged every copy: the ledger is right, the customer needs a
  // refund through the bank — reversing the ledger would hide that.
  for (Duplicate& d : out.duplicates) {
    auto b = bank.find(d.key.front());
    d.bank_movements = b == bank.end() ? 0 : b->second.count;
    if (b == bank.end() || b->second.count < d.copies() || b->second.sum != InBankSign(spec, d.amount) * d.copies())
      continue;
    for (ExtraCopy& c : d.extra)
      if (c.state == CopyState::kOpen) c.state = CopyState::kHeld;
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
                 const Period& period) {
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
                         before ? CopyState::kReversedBefore : CopyState::kOpen});
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

  if (statement) CompareWithStatement(spec, groups, *statement, period, out);
  return out;
}

}  // namespace idem::reconcile
