// A bank statement (CSV) and the times and amounts in it, on arbitrary text:
// the reconciliation reads these files from outside. Parsing only.
//
// Beyond "no crash": every amount accepted reads back the same after
// formatting, every row has a key (without a byte order mark) and a time
// that was read when it has one, and a time accepted is a time that formats
// back (as milliseconds) to itself.
#include <cstdint>
#include <string>

#include "fuzz_text.h"
#include "ops/reconcile/amount.h"
#include "ops/reconcile/period.h"
#include "ops/reconcile/statement_csv.h"

namespace {

using idem::fuzz::Check;
using namespace idem::reconcile;

void CheckAmount(const std::string& text, int decimals) {
  auto a = ParseAmount(text, decimals);
  if (!a.ok()) return;
  auto again = ParseAmount(FormatAmount(*a, decimals), decimals);
  Check(again.ok() && *again == *a, "a formatted amount does not read back the same");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const int decimals = size ? data[0] % 10 : 2;
  CheckAmount(text, decimals);
  auto rows = ParseStatementCsv(text, 2);
  if (rows.ok())
    for (const StatementRow& r : *rows) {
      Check(!r.key.empty() && r.line >= 1, "a statement row without a key or line");
      Check(r.key.rfind("\xEF\xBB\xBF", 0) != 0, "a byte order mark kept in a key");
      Check(r.time.empty() != r.time_ms.has_value(), "a row's time and its milliseconds disagree");
      CheckAmount(FormatAmount(r.amount, 2), 2);
    }
  auto ms = ParseTimeMs(text);
  if (ms.ok() && *ms >= 0) {
    auto again = ParseTimeMs(std::to_string(*ms));
    Check(again.ok() && *again == *ms, "milliseconds do not read back the same");
  }
  return 0;
}
