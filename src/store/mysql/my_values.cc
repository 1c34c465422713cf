#include "store/mysql/my_values.h"

#include <cstring>

namespace idem::mysql {
namespace {

bool IsIntegerType(enum_field_types t) {
  return t == MYSQL_TYPE_TINY || t == MYSQL_TYPE_SHORT || t == MYSQL_TYPE_INT24 || t == MYSQL_TYPE_LONG ||
         t == MYSQL_TYPE_LONGLONG || t == MYSQL_TYPE_YEAR;
}

bool IsBinaryString(const MYSQL_FIELD& f) {
  constexpr unsigned kBinaryCharset = 63;
  switch (f.type) {
    case MYSQL_TYPE_STRING:
    case MYSQL_TYPE_VAR_STRING:
    case MYSQL_TYPE_VARCHAR:
    case MYSQL_TYPE_TINY_BLOB:
    case MYSQL_TYPE_BLOB:
    case MYSQL_TYPE_MEDIUM_BLOB:
    case MYSQL_TYPE_LONG_BLOB:
      return f.charsetnr == kBinaryCharset;
    default:
      return false;
  }
}

// A DECIMAL's text as a Value: integral ones (SUM of integers) as int64.
Value DecimalValue(std::string text) {
  if (text.find_first_of(".eE") == std::string::npos) {
    try {
      return static_cast<int64_t>(std::stoll(text));
    } catch (...) {  // beyond int64: fall through to double
    }
  }
  try {
    return std::stod(text);
  } catch (...) {
    return text;
  }
}

// Storage for one result column of the current row.
struct Column {
  int64_t integer = 0;
  double real = 0;
  std::string bytes;
  unsigned long length = 0;
  my_bool is_null = 0;
  my_bool error = 0;
};

}  // namespace

ParamBinds::ParamBinds(const std::vector<Value>& values) : binds_(values.size()), lengths_(values.size()) {
  for (size_t i = 0; i < values.size(); ++i) {
    MYSQL_BIND& b = binds_[i];
    std::memset(&b, 0, sizeof b);
    const Value& v = values[i];
    if (std::holds_alternative<std::nullptr_t>(v)) {
      b.buffer_type = MYSQL_TYPE_NULL;
    } else if (const auto* n = std::get_if<int64_t>(&v)) {
      b.buffer_type = MYSQL_TYPE_LONGLONG;
      b.buffer = const_cast<int64_t*>(n);
    } else if (const auto* d = std::get_if<double>(&v)) {
      b.buffer_type = MYSQL_TYPE_DOUBLE;
      b.buffer = const_cast<double*>(d);
    } else {
      const std::string& s = std::holds_alternative<Blob>(v) ? std::get<Blob>(v).bytes : std::get<std::string>(v);
      b.buffer_type = std::holds_alternative<Blob>(v) ? MYSQL_TYPE_BLOB : MYSQL_TYPE_STRING;
      b.buffer = const_cast<char*>(s.data());
      b.buffer_length = s.size();
      lengths_[i] = s.size();
      b.length = &lengths_[i];
    }
  }
}

Result<Rows> FetchRows(MYSQL_STMT* stmt, MYSQL_RES* metadata) {
  const unsigned n = mysql_num_fields(metadata);
  MYSQL_FIELD* fields = mysql_fetch_fields(metadata);
  std::vector<Column> cols(n);
  std::vector<MYSQL_BIND> binds(n);
  for (unsigned i = 0; i < n; ++i) {
    MYSQL_BIND& b = binds[i];
    std::memset(&b, 0, sizeof b);
    Column& c = cols[i];
    b.is_null = &c.is_null;
    b.length = &c.length;
    b.error = &c.error;
    if (IsIntegerType(fields[i].type)) {
      b.buffer_type = MYSQL_TYPE_LONGLONG;
      b.buffer = &c.integer;
      b.is_unsigned = (fields[i].flags & UNSIGNED_FLAG) != 0;
    } else if (fields[i].type == MYSQL_TYPE_FLOAT || fields[i].type == MYSQL_TYPE_DOUBLE) {
      b.buffer_type = MYSQL_TYPE_DOUBLE;
      b.buffer = &c.real;
    } else {
      // max_length: the longest value of this column in the stored result;
      // dates and numbers converted to text may need a little more.
      c.bytes.resize(std::max<unsigned long>(fields[i].max_length, 64));
      b.buffer_type = MYSQL_TYPE_STRING;
      b.buffer = c.bytes.data();
      b.buffer_length = c.bytes.size();
    }
  }
  if (mysql_stmt_bind_result(stmt, binds.data()) != 0) return Status::Permanent(mysql_stmt_error(stmt));
  Rows rows;
  for (;;) {
    const int rc = mysql_stmt_fetch(stmt);
    if (rc == MYSQL_NO_DATA) break;
    if (rc == 1) return Status::Permanent(mysql_stmt_error(stmt));
    Row row;
    row.reserve(n);
    for (unsigned i = 0; i < n; ++i) {
      Column& c = cols[i];
      if (c.is_null) {
        row.emplace_back(nullptr);
      } else if (binds[i].buffer_type == MYSQL_TYPE_LONGLONG) {
        row.emplace_back(c.integer);
      } else if (binds[i].buffer_type == MYSQL_TYPE_DOUBLE) {
        row.emplace_back(c.real);
      } else {
        std::string text;
        if (c.length > c.bytes.size()) {  // MYSQL_DATA_TRUNCATED: fetch the whole value
          text.resize(c.length);
          MYSQL_BIND whole;
          std::memset(&whole, 0, sizeof whole);
          whole.buffer_type = MYSQL_TYPE_STRING;
          whole.buffer = text.data();
          whole.buffer_length = text.size();
          if (mysql_stmt_fetch_column(stmt, &whole, i, 0) != 0) return Status::Permanent(mysql_stmt_error(stmt));
        } else {
          text.assign(c.bytes.data(), c.length);
        }
        if (IsBinaryString(fields[i])) row.emplace_back(Blob{std::move(text)});
        else if (fields[i].type == MYSQL_TYPE_NEWDECIMAL || fields[i].type == MYSQL_TYPE_DECIMAL)
          row.push_back(DecimalValue(std::move(text)));
        else row.emplace_back(std::move(text));
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace idem::mysql
