// The ordered migrations of idem's tables: each takes a store from the version
// before it to its own. A migration reads the catalogue and returns the
// statements it needs on this store ("" when there is nothing to change here);
// tables it does not touch and tables that are missing are created from
// StoreTables() after the migrations ran.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "idem/sql.h"
#include "idem/status.h"

namespace idem::schema {

struct Migration {
  int version;            // the version it leads to
  std::string_view what;  // for `idem schema check|migrate`
  Result<std::string> (*statements)(SqlTx& tx);
};

// In version order.
const std::vector<Migration>& Migrations();

}  // namespace idem::schema
