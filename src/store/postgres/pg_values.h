// Converting between idem Values and libpq's parameters and results.
//
// Numbers and text travel in text format with their type left for the server
// to infer from the statement (as libpqxx does), so `?` works wherever a
// literal would; blobs travel as binary bytea. Result columns come back as the
// closest Value: integers and booleans as int64, floating and numeric as double
// (integral numerics as int64), bytea as Blob, everything else as text.
#pragma once

#include <libpq-fe.h>

#include <string>
#include <vector>

#include "idem/sql.h"
#include "idem/status.h"

namespace idem::pg {

class Params {
 public:
  // Fails for text containing a NUL byte: PostgreSQL text cannot hold it.
  static Result<Params> From(const std::vector<Value>& values);

  int count() const { return static_cast<int>(ptrs_.size()); }
  const char* const* values() const { return ptrs_.data(); }
  const int* lengths() const { return lengths_.data(); }
  const int* formats() const { return formats_.data(); }
  const Oid* types() const { return types_.data(); }
  // Distinguishes statements whose parameter types differ (only bytea is declared).
  std::string TypeSignature() const;

 private:
  std::vector<std::string> text_;
  std::vector<const char*> ptrs_;
  std::vector<int> lengths_;
  std::vector<int> formats_;
  std::vector<Oid> types_;
};

Rows RowsFromResult(const PGresult* res);

}  // namespace idem::pg
