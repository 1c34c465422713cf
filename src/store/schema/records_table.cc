#include "store/schema/tables.h"

namespace idem::schema {

std::string VersionTableDdl(const SqlDialect& d) {
  return "CREATE TABLE IF NOT EXISTS idem_schema (version INTEGER NOT NULL)" + d.TableOptions(false) + ";\n";
}

std::string RecordsTableDdl(const SqlDialect& d) {
  const std::string ms = std::string(d.BigInt());
  const std::string text = std::string(d.LongText());
  return "CREATE TABLE IF NOT EXISTS idem_records (\n"
         "  consumer_group " + d.ByteKey(255) + " NOT NULL,\n"
         "  " + d.QuoteIdentifier("key") + "          " + d.ByteKey(512) + " NOT NULL,\n"
         "  status         " + d.BoundedText(16) + " NOT NULL CHECK (" +
         OneOf("status", {"PROCESSING", "SUCCEEDED", "FAILED", "RELEASED"}) + "),\n"
         "  fingerprint    " + text + " NOT NULL,\n"
         "  message_id     " + text + " NOT NULL,\n"
         "  attempts       INTEGER NOT NULL DEFAULT 0,\n"
         "  duplicates     INTEGER NOT NULL DEFAULT 0,\n"
         "  lease_until_ms " + ms + " NOT NULL,\n"
         "  first_seen_ms  " + ms + " NOT NULL,\n"
         "  last_seen_ms   " + ms + " NOT NULL,\n"
         "  last_error     " + text + " NOT NULL DEFAULT '',\n"
         "  result_summary " + text + " NOT NULL DEFAULT '',\n"
         "  PRIMARY KEY (consumer_group, " + d.QuoteIdentifier("key") + ")\n"
         ")" + d.TableOptions(/*clustered=*/true) + ";\n"
         "CREATE INDEX IF NOT EXISTS idem_records_by_last_seen ON idem_records (last_seen_ms);\n";
}

std::string OneOf(std::string_view column, std::initializer_list<std::string_view> values) {
  std::string out;
  for (std::string_view v : values)
    out.append(out.empty() ? "" : " OR ").append(column).append(" = '").append(v).append("'");
  return out;
}

}  // namespace idem::schema
