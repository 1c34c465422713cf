// A bank statement as CSV: one row per movement the bank made,
//   business key, amount, time
// e.g. `P20260928001,199.00,2026-09-28T10:00:12+08:00`. The time is optional
// and kept as text for the report. A first line whose amount field has no digit
// (`biz_no,amount,time`) is a header. Fields may be quoted ("a,b" and "" inside).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "idem/status.h"

namespace idem::reconcile {

struct StatementRow {
  std::string key;
  int64_t amount = 0;  // minor units
  std::string time;
  int line = 0;  // 1-based, for messages
};

// InvalidArgument naming the line (and what is wrong with it) on malformed input.
Result<std::vector<StatementRow>> ParseStatementCsv(std::string_view text, int amount_decimals);

}  // namespace idem::reconcile
