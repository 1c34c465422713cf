// Converting between idem Values and Connector/C's MYSQL_BIND arrays.
//
// Integers travel as LONGLONG, floating point as DOUBLE, text as STRING and
// Blobs as BLOB. Result columns come back as the closest Value: integer types
// as int64, FLOAT/DOUBLE as double, DECIMAL as int64 when integral (a SUM of
// integers) and double otherwise, binary strings and BLOBs as Blob, the rest
// (text, dates) as text.
#pragma once

#include <mysql.h>

#include <string>
#include <vector>

#include "idem/sql.h"
#include "idem/status.h"

namespace idem::mysql {

// The parameter binds for `values`; they point into `values`, which must
// outlive them.
class ParamBinds {
 public:
  explicit ParamBinds(const std::vector<Value>& values);
  MYSQL_BIND* data() { return binds_.empty() ? nullptr : binds_.data(); }

 private:
  std::vector<MYSQL_BIND> binds_;
  std::vector<unsigned long> lengths_;
};

// Fetches every row of an executed statement that has a result set. REQUIRES:
// STMT_ATTR_UPDATE_MAX_LENGTH was set, so each column's longest value is known.
// The error is the statement's; the caller maps it.
Result<Rows> FetchRows(MYSQL_STMT* stmt, MYSQL_RES* metadata);

}  // namespace idem::mysql
