#include "ops/reconcile/statement_csv.h"

#include "ops/reconcile/amount.h"

namespace idem::reconcile {
namespace {

// Splits one line into fields (RFC 4180 quoting, without newlines inside quotes).
Result<std::vector<std::string>> SplitCsvLine(std::string_view line, int number) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c != '"') {
        fields.back() += c;
      } else if (i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else {
        quoted = false;
      }
    } else if (c == '"' && fields.back().empty()) {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  if (quoted)
    return Status::InvalidArgument("statement line " + std::to_string(number) +
                                   ": a quoted field is not closed (a quote inside a field is written \"\")");
  for (std::string& f : fields) {
    const size_t b = f.find_first_not_of(' ');
    const size_t e = f.find_last_not_of(' ');
    f = b == std::string::npos ? std::string() : f.substr(b, e - b + 1);
  }
  return fields;
}

}  // namespace

Result<std::vector<StatementRow>> ParseStatementCsv(std::string_view text, int amount_decimals) {
  std::vector<StatementRow> rows;
  int number = 0;
  bool first_content_line = true;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    const bool may_be_header = first_content_line;
    first_content_line = false;
    auto fields = SplitCsvLine(line, number);
    if (!fields.ok()) return fields.status();
    const std::string where = "statement line " + std::to_string(number) + ": ";
    if (fields->size() < 2 || fields->size() > 3)
      return Status::InvalidArgument(where + "expected 'business key,amount[,time]', found " +
                                     std::to_string(fields->size()) + " fields");
    auto amount = ParseAmount((*fields)[1], amount_decimals);
    if (!amount.ok()) {
      // A header names its columns; a first row with digits in the amount is a
      // malformed movement, which must not be skipped as if it were a header.
      if (may_be_header && (*fields)[1].find_first_of("0123456789") == std::string::npos) continue;
      return Status::InvalidArgument(where + amount.status().message());
    }
    if ((*fields)[0].empty()) return Status::InvalidArgument(where + "the business key is empty");
    rows.push_back({(*fields)[0], *amount, fields->size() == 3 ? (*fields)[2] : "", number});
  }
  return rows;
}

}  // namespace idem::reconcile
