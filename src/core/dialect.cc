#include "idem/sql.h"

namespace idem {

std::string_view DialectName(Dialect dialect) {
  switch (dialect) {
    case Dialect::kSqlite:
      return "sqlite";
    case Dialect::kPostgres:
      return "postgres";
    case Dialect::kMySql:
      return "mysql";
  }
  return "unknown";
}

}  // namespace idem
