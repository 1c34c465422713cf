// The SQL dialect of each store (idem/sql.h). Text only, no client library, so
// they live in idem::core and every build has all of them: `idem schema print
// --dialect mysql` works in a build without the MySQL store.
#pragma once

#include "idem/sql.h"

namespace idem {

const SqlDialect& SqliteDialect();
const SqlDialect& PostgresDialect();
const SqlDialect& MysqlDialect();

}  // namespace idem
