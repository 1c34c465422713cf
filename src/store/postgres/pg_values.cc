#include "store/postgres/pg_values.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace idem::pg {
namespace {

// Type OIDs from PostgreSQL's catalog (pg_type.dat); stable across versions.
constexpr Oid kBool = 16, kBytea = 17, kInt8 = 20, kInt2 = 21, kInt4 = 23, kOid = 26, kFloat4 = 700,
              kFloat8 = 701, kNumeric = 1700;

std::string DoubleText(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, d);  // shortest text that reads back the same double
  return std::string(buf, r.ptr);
}

bool ParseInt(const char* s, int len, int64_t* out) {
  auto r = std::from_chars(s, s + len, *out);
  return r.ec == std::errc() && r.ptr == s + len;
}

Value DecodeValue(const PGresult* res, int row, int col) {
  if (PQgetisnull(res, row, col)) return nullptr;
  const char* s = PQgetvalue(res, row, col);
  const int len = PQgetlength(res, row, col);
  int64_t i = 0;
  switch (PQftype(res, col)) {
    case kInt2:
    case kInt4:
    case kInt8:
    case kOid:
      if (ParseInt(s, len, &i)) return i;
      break;
    case kBool:
      return int64_t{s[0] == 't'};
    case kFloat4:
    case kFloat8:
      return std::strtod(s, nullptr);  // also reads NaN and Infinity
    case kNumeric:
      // SUM(bigint) and friends are numeric: keep whole numbers exact.
      if (ParseInt(s, len, &i)) return i;
      return std::strtod(s, nullptr);
    case kBytea: {
      size_t n = 0;
      unsigned char* bytes = PQunescapeBytea(reinterpret_cast<const unsigned char*>(s), &n);
      if (!bytes) break;
      Blob b{std::string(reinterpret_cast<const char*>(bytes), n)};
      PQfreemem(bytes);
      return b;
    }
    default:
      break;
  }
  return std::string(s, len);
}

}  // namespace

Result<Params> Params::From(const std::vector<Value>& values) {
  Params p;
  const size_t n = values.size();
  p.text_.resize(n);  // sized once: ptrs_ point into these strings
  p.ptrs_.assign(n, nullptr);
  p.lengths_.assign(n, 0);
  p.formats_.assign(n, 0);
  p.types_.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const Value& v = values[i];
    if (std::holds_alternative<std::nullptr_t>(v)) continue;
    if (const auto* x = std::get_if<int64_t>(&v)) {
      p.text_[i] = std::to_string(*x);
    } else if (const auto* d = std::get_if<double>(&v)) {
      p.text_[i] = DoubleText(*d);
    } else if (const auto* s = std::get_if<std::string>(&v)) {
      if (s->find('\0') != std::string::npos)
        return Status::InvalidArgument("parameter " + std::to_string(i + 1) +
                                       " is text with a NUL byte, which PostgreSQL text cannot hold; bind it as a Blob");
      p.text_[i] = *s;
    } else if (const auto* b = std::get_if<Blob>(&v)) {
      p.text_[i] = b->bytes;
      p.formats_[i] = 1;
      p.types_[i] = kBytea;
    }
    p.ptrs_[i] = p.text_[i].data();
    p.lengths_[i] = static_cast<int>(p.text_[i].size());
  }
  return p;
}

std::string Params::TypeSignature() const {
  std::string sig;
  for (Oid t : types_) sig += t == kBytea ? 'b' : '.';
  return sig;
}

Rows RowsFromResult(const PGresult* res) {
  Rows rows;
  const int nrows = PQntuples(res);
  const int ncols = PQnfields(res);
  rows.reserve(nrows);
  for (int r = 0; r < nrows; ++r) {
    Row row;
    row.reserve(ncols);
    for (int c = 0; c < ncols; ++c) row.push_back(DecodeValue(res, r, c));
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace idem::pg
