// PostgreSQL's SQL: row locks with SKIP LOCKED, typed parameters (a CASE
// needs its integers cast), COLLATE "C" for byte-wise keys, transactional DDL.
#include "store/dialects.h"
#include "store/quote_identifier.h"

namespace idem {
namespace {

class PostgresSql final : public SqlDialect {
 public:
  std::string_view Name() const override { return "postgres"; }
  std::string QuoteIdentifier(std::string_view name) const override { return QuoteWith('"', name); }
  std::string_view IntegerParameter() const override { return "CAST(? AS BIGINT)"; }
  std::string_view Greatest() const override { return "GREATEST"; }
  std::string_view ForUpdate() const override { return " FOR UPDATE"; }
  std::string_view ForUpdateSkipLocked() const override { return " FOR UPDATE SKIP LOCKED"; }
  std::string_view SkipDuplicatesClause() const override { return " ON CONFLICT DO NOTHING"; }
  bool InsertSkipsRepeatedRows() const override { return true; }
  bool LimitInSubquery() const override { return true; }
  std::string_view DatabaseFileQuery() const override { return ""; }
  // A table filled a second ago has no statistics (autovacuum has not seen
  // it), and the planner may then scan a million records for every claim.
  std::string_view RefreshStatistics() const override { return "ANALYZE"; }
  std::string_view DurabilitySettingsQuery() const override {
    return "SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit') ORDER BY name";
  }
  // to_regclass follows the search_path, as the store's statements do.
  std::string_view TableExistsQuery() const override {
    return "SELECT count(*) FROM (SELECT to_regclass(?) AS t) r WHERE t IS NOT NULL";
  }
  std::string_view TableDefinitionQuery() const override { return ""; }
  std::string_view AutoIncrementId() const override { return "BIGSERIAL PRIMARY KEY"; }
  std::string_view BigInt() const override { return "BIGINT"; }
  // Byte-wise: exact, locale-independent, and the cheapest index order.
  std::string ByteKey(int) const override { return R"(TEXT COLLATE "C")"; }
  std::string BoundedText(int) const override { return "TEXT"; }
  std::string_view LongText() const override { return "TEXT"; }
  std::string_view RawText() const override { return "TEXT"; }
  std::string_view Bytes() const override { return "BYTEA"; }
  std::string TableOptions(bool) const override { return ""; }
  bool TransactionalDdl() const override { return true; }
};

}  // namespace

const SqlDialect& PostgresDialect() {
  static const PostgresSql dialect;
  return dialect;
}

}  // namespace idem
