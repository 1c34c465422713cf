// What a column's declared type holds, by each engine's own rules: the one
// place that reads type names, for StoreTx::DescribeTable's implementations.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "idem/store.h"

namespace idem {

// SQLite's type affinity of a declared type (the rules of its "Datatypes"
// page, in their order): INT → integer; CHAR, CLOB, TEXT → text; BLOB → blob,
// no type at all → any; REAL, FLOA, DOUB → real; anything else → numeric.
TableColumn::Kind SqliteColumnKind(std::string_view declared_type);

// information_schema.columns.data_type on PostgreSQL ("bigint", "character varying", ...).
TableColumn::Kind PostgresColumnKind(std::string_view data_type);

// information_schema.columns.data_type on MySQL and MariaDB ("bigint", "varchar", ...).
TableColumn::Kind MySqlColumnKind(std::string_view data_type);

// A catalogue query's rows, (column name, type name) each, as columns whose
// kind `kind_of` tells; nullopt for no rows (no such table: a table has a column).
std::optional<std::vector<TableColumn>> ColumnsFromRows(const Rows& rows, TableColumn::Kind (*kind_of)(std::string_view));

}  // namespace idem
