#include "store/schema/tables.h"

namespace idem::schema {

// The embedded queue lives in SQLite only, so its tables are written in SQLite's SQL.
std::string QueueTablesDdl() {
  return R"sql(
CREATE TABLE IF NOT EXISTS idem_queue (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  msg_id          TEXT NOT NULL,
  topic           TEXT NOT NULL,
  key             BLOB NOT NULL DEFAULT x'',
  headers         TEXT NOT NULL DEFAULT '{}',
  payload         BLOB NOT NULL,
  state           INTEGER NOT NULL DEFAULT 0,   -- 0 queued, 1 dead (terminal queue)
  visible_at_ms   INTEGER NOT NULL,
  lease_token     INTEGER NOT NULL DEFAULT 0,   -- non-zero while leased to a consumer
  deliveries      INTEGER NOT NULL DEFAULT 0,
  attempt         INTEGER NOT NULL DEFAULT 1,   -- the record's attempt count at the last retry or park
  published_at_ms INTEGER NOT NULL,
  first_failed_ms INTEGER NOT NULL DEFAULT 0,
  last_failed_ms  INTEGER NOT NULL DEFAULT 0,
  reason          TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS idem_queue_ready ON idem_queue (state, visible_at_ms, id);
CREATE TABLE IF NOT EXISTS idem_queue_audit (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  at_ms       INTEGER NOT NULL,
  actor       TEXT NOT NULL,
  action      TEXT NOT NULL,
  message_row INTEGER NOT NULL,
  msg_id      TEXT NOT NULL,
  detail      TEXT NOT NULL
);
)sql";
}

}  // namespace idem::schema
