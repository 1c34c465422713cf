// A bank statement as CSV: one row per movement the bank made,
//   business key, amount, time
// e.g. `P20260928001,199.00,2026-09-28T10:00:12+08:00`. The time is optional;
// when given it is one of ParseTimeMs's forms, and it places the movement for
// matching (the text is kept for the report).
//
// The file may start with a UTF-8 byte order mark, and its first line may be a
// header: a first line whose amount field starts with a letter
// (`biz_no,amount,time`, `Ref,Betrag_EUR,Datum2`) names columns. Fields may be
// quoted ("a,b", and "" for a quote inside); spaces around an unquoted field are
// dropped. Everything else that is not a movement is an error naming the line
// and column: a tab or other control character, a space before an opening
// quote or text after a closing one, a quote inside an unquoted field, a byte
// order mark anywhere but at the start.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "idem/status.h"

namespace idem::reconcile {

struct StatementRow {
  std::string key;
  int64_t amount = 0;  // minor units
  std::string time;
  int line = 0;                   // 1-based, for messages
  std::optional<int64_t> time_ms;  // `time` read as ms since the epoch; none without a time
};

// InvalidArgument naming the line and column (and what is wrong there) on malformed input.
Result<std::vector<StatementRow>> ParseStatementCsv(std::string_view text, int amount_decimals);

}  // namespace idem::reconcile
