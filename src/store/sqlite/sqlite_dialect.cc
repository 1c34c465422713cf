// SQLite's SQL: one file, one writer at a time (so no row locks to take or
// skip), dynamic types with affinities, ON CONFLICT DO NOTHING.
#include "store/dialects.h"
#include "store/quote_identifier.h"

namespace idem {
namespace {

class SqliteSql final : public SqlDialect {
 public:
  std::string_view Name() const override { return "sqlite"; }
  std::string QuoteIdentifier(std::string_view name) const override { return QuoteWith('"', name); }
  std::string_view IntegerParameter() const override { return "?"; }
  std::string_view Greatest() const override { return "MAX"; }
  // BEGIN IMMEDIATE already holds the database's write lock.
  std::string_view ForUpdate() const override { return ""; }
  std::string_view ForUpdateSkipLocked() const override { return ""; }
  std::string_view SkipDuplicatesClause() const override { return " ON CONFLICT DO NOTHING"; }
  bool InsertSkipsRepeatedRows() const override { return true; }
  bool LimitInSubquery() const override { return true; }
  std::string_view DatabaseFileQuery() const override {
    return "SELECT file FROM pragma_database_list WHERE name = 'main'";
  }
  // No automatic ANALYZE: tables are measured as most deployments leave them.
  std::string_view RefreshStatistics() const override { return ""; }
  std::string_view DurabilitySettingsQuery() const override { return ""; }
  std::string_view TableExistsQuery() const override {
    return "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?";
  }
  std::string_view TableDefinitionQuery() const override {
    return "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?";
  }
  std::string_view AutoIncrementId() const override { return "INTEGER PRIMARY KEY AUTOINCREMENT"; }
  std::string_view BigInt() const override { return "INTEGER"; }  // SQLite's INTEGER is 64-bit
  // BINARY, SQLite's default collation, already compares bytes.
  std::string ByteKey(int) const override { return "TEXT"; }
  std::string BoundedText(int) const override { return "TEXT"; }
  std::string_view LongText() const override { return "TEXT"; }
  std::string_view RawText() const override { return "TEXT"; }
  std::string_view Bytes() const override { return "BLOB"; }
  // WITHOUT ROWID: the primary key is the table (no rowid b-tree beside it).
  std::string TableOptions(bool clustered) const override { return clustered ? " WITHOUT ROWID" : ""; }
  bool TransactionalDdl() const override { return true; }
};

}  // namespace

const SqlDialect& SqliteDialect() {
  static const SqliteSql dialect;
  return dialect;
}

}  // namespace idem
