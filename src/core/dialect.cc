#include "idem/sql.h"
#include "store/dialects.h"

namespace idem {

const SqlDialect* FindSqlDialect(std::string_view name) {
  if (name == "sqlite") return &SqliteDialect();
  if (name == "postgres" || name == "postgresql") return &PostgresDialect();
  if (name == "mysql" || name == "mariadb") return &MysqlDialect();
  return nullptr;
}

Result<int64_t> SqlTx::InsertNew(std::string_view insert, const std::vector<Value>& params, size_t rows) {
  const SqlDialect& d = Dialect();
  auto n = Exec(std::string(insert).append(d.SkipDuplicatesClause()), params);
  // Without a clause that skips duplicates (MySQL: INSERT IGNORE would also
  // turn NULLs and truncations into warnings), a duplicate fails the statement
  // and rolls back only it, so the transaction stays usable either way.
  if (!n.ok() && n.status().IsAlreadyExists() && rows == 1) return int64_t{0};
  return n;
}

}  // namespace idem
