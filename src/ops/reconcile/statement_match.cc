#include "ops/reconcile/statement_match.h"

#include <algorithm>
#include <limits>

namespace idem::reconcile {
namespace {

using Key = std::vector<std::string>;

struct Copy {
  const Key* key;
  size_t index;  // in its group
  const LedgerEntry* entry;
  bool taken = false;
};

}  // namespace

int64_t InBankSign(const LedgerSpec& spec, int64_t ledger_amount) {
  return spec.bank_sign == BankSign::kOpposite ? -ledger_amount : ledger_amount;
}

StatementMatch MatchStatement(const LedgerSpec& spec, const std::map<Key, std::vector<LedgerEntry>>& groups,
                              const std::vector<StatementRow>& statement, const Period& period, int64_t window_ms) {
  StatementMatch out;
  std::map<std::string, std::vector<Copy>> copies;  // by the key's first column, oldest first
  for (const auto& [key, entries] : groups) {
    out.copies[key].assign(entries.size(), BankEvidence::kUnmatched);
    for (size_t i = 0; i < entries.size(); ++i) copies[key.front()].push_back({&key, i, &entries[i]});
  }
  for (auto& [first, list] : copies)
    std::stable_sort(list.begin(), list.end(),
                     [](const Copy& a, const Copy& b) { return a.entry->time_ms < b.entry->time_ms; });

  // How far a copy lies from a row; 0 when the row or the ledger has no time
  // (then it matches at any distance). Unsigned: the distance between any two
  // int64 values fits, without overflow.
  auto distance = [&](const Copy& c, const StatementRow& r) -> uint64_t {
    if (!r.time_ms || spec.time_column.empty()) return 0;
    const uint64_t a = static_cast<uint64_t>(c.entry->time_ms), b = static_cast<uint64_t>(*r.time_ms);
    return c.entry->time_ms > *r.time_ms ? a - b : b - a;
  };
  // The nearest free copy inside the window (the oldest of equals): of a
  // double charge across midnight, the next day's movement is the later copy's.
  auto take = [&](const StatementRow& r, bool same_amount) -> Copy* {
    auto found = copies.find(r.key);
    if (found == copies.end()) return nullptr;
    Copy* best = nullptr;
    for (Copy& c : found->second) {
      if (c.taken || (same_amount && InBankSign(spec, c.entry->amount) != r.amount)) continue;
      const uint64_t d = distance(c, r);
      if (d <= static_cast<uint64_t>(window_ms) && (!best || d < distance(*best, r))) best = &c;
    }
    if (best) {
      best->taken = true;
      out.copies[*best->key][best->index] = BankEvidence::kMatched;
    }
    return best;
  };

  // Rows in time order, so that of two movements the earlier takes the earlier copy.
  std::vector<const StatementRow*> rows;
  for (const StatementRow& r : statement) rows.push_back(&r);
  std::stable_sort(rows.begin(), rows.end(), [](const StatementRow* a, const StatementRow* b) {
    return a->time_ms.value_or(std::numeric_limits<int64_t>::max()) <
           b->time_ms.value_or(std::numeric_limits<int64_t>::max());
  });
  std::vector<const StatementRow*> left;
  for (const StatementRow* r : rows)
    if (!take(*r, true)) left.push_back(r);
  for (const StatementRow* r : left) {
    if (const Copy* c = take(*r, false))
      out.mismatches.push_back(
          {MismatchKind::kAmountDiffers, r->key, InBankSign(spec, c->entry->amount), r->amount, r->time, r->line});
    else if (!r->time_ms || period.Contains(*r->time_ms))
      out.mismatches.push_back({MismatchKind::kMissingInLedger, r->key, std::nullopt, r->amount, r->time, r->line});
    else
      ++out.rows_not_covered;
  }

  for (auto& [key, evidence] : out.copies) {
    const std::vector<LedgerEntry>& entries = groups.at(key);
    for (size_t i = 0; i < evidence.size(); ++i)
      if (evidence[i] == BankEvidence::kUnmatched && !period.Contains(entries[i].time_ms))
        evidence[i] = BankEvidence::kNotCovered;
    // The bank's movement is the real charge's, whichever copy of the period
    // it fell on. A first copy outside the period was judged by its own day.
    auto matched = std::find(evidence.begin(), evidence.end(), BankEvidence::kMatched);
    if (evidence.front() == BankEvidence::kUnmatched && matched != evidence.end())
      std::iter_swap(evidence.begin(), matched);
    if (evidence.front() == BankEvidence::kUnmatched)
      out.mismatches.push_back({MismatchKind::kMissingAtBank, key.front(), InBankSign(spec, entries.front().amount),
                                std::nullopt, "", 0});
  }
  std::stable_sort(out.mismatches.begin(), out.mismatches.end(),
                   [](const Mismatch& a, const Mismatch& b) { return a.key < b.key; });
  return out;
}

}  // namespace idem::reconcile
