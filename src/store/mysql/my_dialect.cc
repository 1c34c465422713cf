// MySQL's and MariaDB's SQL: backtick quoting, `key` reserved, InnoDB with a
// byte-wise collation, VARBINARY keys under InnoDB's index limit, no ON
// CONFLICT (a duplicate key fails and rolls back only its statement), DDL that
// commits at once.
#include "store/dialects.h"
#include "store/quote_identifier.h"

namespace idem {
namespace {

class MysqlSql final : public SqlDialect {
 public:
  std::string_view Name() const override { return "mysql"; }
  std::string QuoteIdentifier(std::string_view name) const override { return QuoteWith('`', name); }
  std::string_view IntegerParameter() const override { return "CAST(? AS SIGNED)"; }
  std::string_view Greatest() const override { return "GREATEST"; }
  std::string_view ForUpdate() const override { return " FOR UPDATE"; }
  std::string_view ForUpdateSkipLocked() const override { return " FOR UPDATE SKIP LOCKED"; }
  // INSERT IGNORE would also turn NULLs and truncations into warnings and a changed row.
  std::string_view SkipDuplicatesClause() const override { return ""; }
  bool InsertSkipsRepeatedRows() const override { return false; }
  bool LimitInSubquery() const override { return false; }
  std::string_view DatabaseFileQuery() const override { return ""; }
  std::string_view RefreshStatistics() const override { return ""; }
  // innodb_flush_log_at_trx_commit = 1 flushes the redo log at every commit; 0 and 2 leave it to a timer.
  std::string_view DurabilitySettingsQuery() const override {
    return "SELECT 'innodb_flush_log_at_trx_commit', @@innodb_flush_log_at_trx_commit UNION ALL "
           "SELECT 'log_bin', @@log_bin";
  }
  std::string_view TableExistsQuery() const override {
    return "SELECT count(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ? "
           "AND table_type = 'BASE TABLE'";
  }
  std::string_view TableDefinitionQuery() const override { return ""; }
  std::string_view AutoIncrementId() const override { return "BIGINT AUTO_INCREMENT PRIMARY KEY"; }
  std::string_view BigInt() const override { return "BIGINT"; }
  // Compared byte-wise like the other dialects; a group (255) and a key (512)
  // together stay under InnoDB's 3072-byte index limit.
  std::string ByteKey(int max_bytes) const override { return "VARBINARY(" + std::to_string(max_bytes) + ")"; }
  // InnoDB cannot index TEXT without a length.
  std::string BoundedText(int max_chars) const override { return "VARCHAR(" + std::to_string(max_chars) + ")"; }
  std::string_view LongText() const override { return "MEDIUMTEXT"; }
  std::string_view RawText() const override { return "MEDIUMBLOB"; }
  std::string_view Bytes() const override { return "LONGBLOB"; }
  // InnoDB already stores a table in primary-key order.
  std::string TableOptions(bool) const override {
    return " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin";
  }
  bool TransactionalDdl() const override { return false; }
};

}  // namespace

const SqlDialect& MysqlDialect() {
  static const MysqlSql dialect;
  return dialect;
}

}  // namespace idem
