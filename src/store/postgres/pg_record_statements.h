// The record statements the PostgreSQL store prepares once per connection and
// runs for every batch: the claim and the record writes. Exposed for the test
// that EXPLAINs their cached plans.
//
// Their plans must not depend on idem_records' statistics. A prepared
// statement's generic plan is made once (after five runs) and kept until the
// table is analyzed again; made while the table is fresh (never analyzed) it
// used to scan every record of the group for each batch — "Index Cond:
// consumer_group = $1", the key only as a filter — because without statistics
// the group alone looks as selective as group and key. So each key is looked
// up on its own, in a LATERAL subquery that OFFSET 0 keeps from being merged
// into a join: its only index condition is the whole primary key.
#pragma once

namespace idem::pg {

// $1 group, $2 keys, $3 fingerprints, $4 message ids (text[] each, in one
// order), $5 lease_until_ms, $6 now_ms. Returns the record columns and
// `inserted` for every key that has or now has a record.
extern const char* const kClaimSql;

// $1 group, $2 now_ms, $3 keys (text[]), $4 touches (boolean[]: true counts a
// copy), $5 statuses, $6 errors, $7 summaries, $8 take-over message ids ('' for
// none) (text[] each). Returns the key of every record it wrote.
extern const char* const kWriteRecordsSql;

}  // namespace idem::pg
