// idem's own tables, each written once over the dialect (idem/sql.h): the
// CREATE statements of one table and its indexes, IF NOT EXISTS, as one
// script. The list a store is created and checked by is StoreTables()
// (schema.cc); a new table is one file here and one entry there.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "idem/sql.h"

namespace idem::schema {

struct SchemaTable {
  std::string_view name;
  std::string (*ddl)(const SqlDialect&);
};

// idem_schema: the one row that says which version of these tables the store holds.
std::string VersionTableDdl(const SqlDialect& d);
// idem_records: the consumption records (docs/stores.md).
std::string RecordsTableDdl(const SqlDialect& d);
// idem_outbox: messages handlers emit until the relay has them confirmed (docs/outbox.md).
std::string OutboxTableDdl(const SqlDialect& d);
// idem_dead_letters: dead letters a broker could not take back (docs/retries-and-dlq.md).
std::string DeadLettersTableDdl(const SqlDialect& d);
// idem_replay_grants: one row per dead letter an operator replayed (store/replay_grants.h).
std::string ReplayGrantsTableDdl(const SqlDialect& d);
// idem_audit: who replayed or purged which dead letters (console/audit_log.h).
std::string AuditTableDdl(const SqlDialect& d);
// The reversals `idem reconcile --apply` made, in a table named `table`
// (idem_reconcile_audit unless the ledger file names another).
std::string ReconcileAuditTableDdl(const SqlDialect& d, std::string_view table);
std::string DefaultReconcileAuditTableDdl(const SqlDialect& d);
// What `idem reconcile --apply` decided about each extra copy and on what
// evidence (held, reversed, released), in a table named `table`
// (idem_reconcile_decisions unless the ledger file names another).
std::string ReconcileDecisionsTableDdl(const SqlDialect& d, std::string_view table);
std::string DefaultReconcileDecisionsTableDdl(const SqlDialect& d);

// The embedded queue's tables, in the queue's own SQLite file (which may be
// the store's): idem_queue and idem_queue_audit.
std::string QueueTablesDdl();

// The tables of every store, in creation order, idem_schema first: created
// and migrated at start, required by StoreAccess::kCurrentSchema.
const std::vector<SchemaTable>& StoreTables();

// Tables a command creates when it first writes one (`idem reconcile --apply`:
// its audit and decisions tables, named by the ledger file), so a dry run leaves the store as
// it was. Printed for the DBA with the others; not required at start.
const std::vector<SchemaTable>& CommandTables();

// `status` equal to one of `values`, written as ORs: SQLite builds a temporary
// b-tree for an IN list of more than two values each time it checks the
// constraint (an insert into idem_records cost 56k instructions instead of 23k).
std::string OneOf(std::string_view column, std::initializer_list<std::string_view> values);

}  // namespace idem::schema
