#include "store/schema/tables.h"

namespace idem::schema {

// The payload byte-exact, the headers as a JSON object, the reason and the
// handler runs. The text columns keep the bytes they came as: a producer's
// topic or key need not be UTF-8.
std::string DeadLettersTableDdl(const SqlDialect& d) {
  const std::string raw = std::string(d.RawText());
  return "CREATE TABLE IF NOT EXISTS idem_dead_letters (\n"
         "  id             " + std::string(d.AutoIncrementId()) + ",\n"
         "  consumer_group " + raw + " NOT NULL,\n"
         "  topic          " + raw + " NOT NULL,\n"
         "  msg_key        " + raw + " NOT NULL,\n"
         "  message_id     " + raw + " NOT NULL,\n"
         "  headers        " + raw + " NOT NULL,\n"
         "  payload        " + std::string(d.Bytes()) + " NOT NULL,\n"
         "  reason         " + raw + " NOT NULL,\n"
         "  attempts       INTEGER NOT NULL DEFAULT 0,\n"
         "  parked_ms      " + std::string(d.BigInt()) + " NOT NULL\n"
         ")" + d.TableOptions(false) + ";\n";
}

// The digest (32 hex digits) is what the pipeline looks a grant up by.
std::string ReplayGrantsTableDdl(const SqlDialect& d) {
  const std::string ms = std::string(d.BigInt());
  return "CREATE TABLE IF NOT EXISTS idem_replay_grants (\n"
         "  id          " + std::string(d.AutoIncrementId()) + ",\n"
         "  copy_digest " + d.BoundedText(32) + " NOT NULL,\n"
         "  message_id  " + std::string(d.RawText()) + " NOT NULL,\n"
         "  audit_id    " + ms + " NOT NULL,\n"
         "  actor       " + std::string(d.LongText()) + " NOT NULL,\n"
         "  granted_ms  " + ms + " NOT NULL\n"
         ")" + d.TableOptions(false) + ";\n"
         "CREATE INDEX IF NOT EXISTS idem_replay_grants_by_copy ON idem_replay_grants (copy_digest);\n";
}

}  // namespace idem::schema
