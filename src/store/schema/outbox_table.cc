#include "store/schema/tables.h"

namespace idem::schema {

// The id orders rows as they were emitted (the relay publishes in that order);
// message_id is the stable id a row keeps across every publish attempt.
std::string OutboxTableDdl(const SqlDialect& d) {
  const std::string ms = std::string(d.BigInt());
  return "CREATE TABLE IF NOT EXISTS idem_outbox (\n"
         "  id         " + std::string(d.AutoIncrementId()) + ",\n"
         "  message_id " + d.ByteKey(64) + " NOT NULL UNIQUE,\n"
         "  topic      " + d.BoundedText(255) + " NOT NULL,\n"
         "  msg_key    " + d.ByteKey(512) + " NOT NULL,\n"
         "  headers    " + std::string(d.LongText()) + " NOT NULL DEFAULT '{}',\n"
         "  payload    " + std::string(d.Bytes()) + " NOT NULL,\n"
         "  state      " + d.BoundedText(8) + " NOT NULL DEFAULT 'PENDING' CHECK (" +
         OneOf("state", {"PENDING", "SENT", "DEAD"}) + "),\n"
         "  attempts   INTEGER NOT NULL DEFAULT 0,\n"
         "  due_ms     " + ms + " NOT NULL,\n"
         "  created_ms " + ms + " NOT NULL,\n"
         "  sent_ms    " + ms + " NOT NULL DEFAULT 0,\n"
         "  last_error " + std::string(d.LongText()) + " NOT NULL DEFAULT ''\n"
         ")" + d.TableOptions(false) + ";\n"
         "CREATE INDEX IF NOT EXISTS idem_outbox_due ON idem_outbox (state, due_ms);\n";
}

}  // namespace idem::schema
