#include "ops/reconcile/statement_csv.h"

#include "ops/reconcile/amount.h"
#include "ops/reconcile/period.h"

namespace idem::reconcile {
namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";

struct Field {
  std::string text;
  int column = 1;  // 1-based byte column where the field starts, for messages
};

Status At(int line, size_t column, const std::string& what) {
  return Status::InvalidArgument("statement line " + std::to_string(line) + ", column " + std::to_string(column) +
                                 ": " + what);
}

std::string ByteName(unsigned char c) {
  if (c == ' ') return "a space";
  if (c == '\t') return "a tab";
  if (c == '\r') return "a carriage return";
  static const char* hex = "0123456789abcdef";
  return std::string("the control byte 0x") + hex[c >> 4] + hex[c & 15];
}

bool IsControl(unsigned char c) { return c < 0x20 || c == 0x7f; }

// Splits one line into fields: RFC 4180 quoting without newlines inside
// quotes, spaces around unquoted fields dropped, and an error for anything a
// spreadsheet would read differently from us.
Result<std::vector<Field>> SplitCsvLine(std::string_view line, int number) {
  std::vector<Field> fields;
  size_t i = 0;
  while (true) {
    Field f;
    f.column = static_cast<int>(i) + 1;
    size_t start = i;
    while (i < line.size() && line[i] == ' ') ++i;
    if (i < line.size() && line[i] == '"') {
      if (i > start)
        return At(number, start + 1,
                  "a space before the opening quote: a quoted field starts with its quote (remove the space)");
      f.column = static_cast<int>(i) + 1;
      ++i;
      bool closed = false;
      while (i < line.size()) {
        const char c = line[i++];
        if (c != '"') {
          f.text += c;
        } else if (i < line.size() && line[i] == '"') {
          f.text += '"';
          ++i;
        } else {
          closed = true;
          break;
        }
      }
      if (!closed)
        return At(number, f.column, "a quoted field is not closed (a quote inside a field is written \"\")");
      if (i < line.size() && line[i] != ',') {
        const unsigned char c = static_cast<unsigned char>(line[i]);
        if (c == ' ' || IsControl(c))
          return At(number, i + 1, ByteName(c) + " after the closing quote (trailing whitespace): remove it");
        return At(number, i + 1,
                  "text after the closing quote: a quote inside a field is written \"\", and nothing may follow "
                  "the closing quote but a comma");
      }
    } else {
      i = start;
      while (i < line.size() && line[i] != ',') {
        const unsigned char c = static_cast<unsigned char>(line[i]);
        if (c == '"')
          return At(number, i + 1,
                    "a quote inside an unquoted field: quote the whole field and write the quote as \"\"");
        if (IsControl(c)) {
          const size_t next = line.find_first_not_of(" \t\r", i);
          const bool trailing = next == std::string_view::npos || line[next] == ',';
          return At(number, i + 1,
                    ByteName(c) + (trailing ? " after the value (trailing whitespace): remove it"
                                            : " inside the value: statements are comma-separated text"));
        }
        f.text += static_cast<char>(c);
        ++i;
      }
      const size_t b = f.text.find_first_not_of(' ');
      const size_t e = f.text.find_last_not_of(' ');
      f.text = b == std::string::npos ? std::string() : f.text.substr(b, e - b + 1);
      if (b != std::string::npos) f.column += static_cast<int>(b);
    }
    fields.push_back(std::move(f));
    if (i >= line.size()) break;
    ++i;  // the comma
  }
  return fields;
}

// A header names its columns: its amount field starts with a letter (or any
// non-ASCII byte: 金额). A first movement with a malformed amount (199.0.0, -x)
// starts with a digit, a sign or a point, and stays an error.
bool LooksLikeAHeader(const std::string& amount_field) {
  if (amount_field.empty()) return false;
  const unsigned char c = static_cast<unsigned char>(amount_field[0]);
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c >= 0x80;
}

}  // namespace

Result<std::vector<StatementRow>> ParseStatementCsv(std::string_view text, int amount_decimals) {
  // Spreadsheets on Windows write a byte order mark before the first field.
  if (text.substr(0, kBom.size()) == kBom) text.remove_prefix(kBom.size());
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
    // Invisible, and a key holding it would match nothing: two files joined?
    if (const size_t bom = line.find(kBom); bom != std::string_view::npos)
      return At(number, bom + 1,
                "a byte order mark inside the file (one belongs only at its very start; were two statements "
                "joined?): remove it");
    const bool may_be_header = first_content_line;
    first_content_line = false;
    auto fields = SplitCsvLine(line, number);
    if (!fields.ok()) return fields.status();
    const std::vector<Field>& f = *fields;
    if (f.size() < 2 || f.size() > 3)
      return At(number, 1,
                "expected 'business key,amount[,time]', found " + std::to_string(f.size()) + " fields");
    if (may_be_header && LooksLikeAHeader(f[1].text)) continue;
    auto amount = ParseAmount(f[1].text, amount_decimals);
    if (!amount.ok()) return At(number, f[1].column, "the amount: " + amount.status().message());
    if (f[0].text.empty()) return At(number, f[0].column, "the business key is empty");
    StatementRow row{f[0].text, *amount, f.size() == 3 ? f[2].text : "", number, std::nullopt};
    if (!row.time.empty()) {
      auto ms = ParseTimeMs(row.time);
      if (!ms.ok()) return At(number, f[2].column, "the time: " + ms.status().message());
      row.time_ms = *ms;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace idem::reconcile
