// Business guards: helpers a handler uses inside the guard's
// transaction so that its own writes are idempotent too. They are the second
// line of defence behind the consumption record, and the only one when a record
// is gone (swept, another consumer group, a replay after a manual fix).
//
//   InsertOnce       a row keyed by a UNIQUE constraint, e.g. a ledger's (biz_no, type):
//                    a duplicate insert means "already applied", not an error
//   ChangeBalance    one conditional UPDATE (`balance + delta >= floor`), never read-modify-write
//   StateMachine     declared transitions; CAS `WHERE state IN (legal predecessors)`;
//                    0 rows → re-read and classify (already there, stale, too early, illegal)
//   UpdateIfVersion  optimistic `WHERE version = ?` for rows without a natural state machine
//
// Every helper works through SqlTx with `?` parameter markers and portable SQL, so it
// runs unchanged on SQLite, PostgreSQL and MySQL/MariaDB. Table and column names
// come from code and must be plain identifiers ([A-Za-z_][A-Za-z0-9_]*; checked,
// InvalidArgument otherwise); values are always bound, never spliced.
//
// The user guide (docs/library.md) shows them in a handler, with the DDL of
// the tables they need.
//
// Thread safety: the free functions hold no state. A StateMachine is immutable
// after Create and may be shared by threads.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "idem/sql.h"
#include "idem/status.h"

namespace idem {

// One column of a row to write. `name` comes from code, never from a message.
struct Column {
  std::string name;
  Value value;
};

// ---------------------------------------------------------------------------
// Insert once.

enum class InsertOutcome { kInserted, kAlreadyApplied };

// Inserts one row into `table`. When a UNIQUE or PRIMARY KEY constraint rejects
// it (the ledger already holds this (biz_no, type)), returns kAlreadyApplied and
// the transaction stays usable with everything written before still in place
// (PostgreSQL and SQLite: INSERT … ON CONFLICT DO NOTHING, one statement; other
// engines: the INSERT under its own savepoint). Any other failure (NOT NULL,
// CHECK, I/O) is returned as an error — it never passes for "already applied" —
// and leaves the transaction as a failed statement does (PostgreSQL: aborted
// until the enclosing savepoint is rolled back; the pipeline's per-message
// savepoint does that).
// REQUIRES: `table` has the UNIQUE constraint that defines "the same row".
Result<InsertOutcome> InsertOnce(SqlTx& tx, std::string_view table, const std::vector<Column>& row);

// ---------------------------------------------------------------------------
// Conditional balance change.

struct BalanceColumn {
  std::string table;           // e.g. "pay_accounts"
  std::string key_column;      // e.g. "user_id"
  std::string balance_column;  // e.g. "balance_cents"; an integer (cents), never floating point
};

enum class BalanceChange {
  kApplied,       // balance += delta, and the result is >= floor
  kInsufficient,  // the row exists but balance + delta < floor; nothing changed
  kNotFound,      // no row with this key
};

// `UPDATE table SET balance = balance + ? WHERE key = ? AND balance + ? >= ?`:
// the check and the change are one statement, so two concurrent deductions can
// never both pass on the same money. kInsufficient is a business outcome for the
// caller to report (usually retryable: awaiting a top-up), never to swallow.
// REQUIRES: delta != 0 (InvalidArgument otherwise: MySQL counts only rows that
// changed, so a zero change could not be told from a short balance).
Result<BalanceChange> ChangeBalance(SqlTx& tx, const BalanceColumn& where, const Value& key, int64_t delta,
                                    int64_t floor = 0);

// ---------------------------------------------------------------------------
// Optimistic version update.

struct VersionedTable {
  std::string table;           // e.g. "pay_stock"
  std::string key_column;      // e.g. "sku"
  std::string version_column;  // an integer bumped by every update
};

enum class VersionedUpdate {
  kApplied,       // the row had `expected_version`; `set` written and version + 1
  kVersionMoved,  // someone updated the row since it was read: re-read and decide again
  kNotFound,      // no row with this key
};

// `UPDATE table SET c1 = ?, …, version = version + 1 WHERE key = ? AND version = ?`.
// The caller read the row and its version, computed the new values, and writes
// them only if nobody else wrote in between.
// REQUIRES: `set` is not empty and does not name the key or version column.
Result<VersionedUpdate> UpdateIfVersion(SqlTx& tx, const VersionedTable& where, const Value& key,
                                        int64_t expected_version, const std::vector<Column>& set);

// ---------------------------------------------------------------------------
// State machine.

struct StateTransition {
  std::string from;
  std::string to;
};

struct StateMachineSpec {
  std::string table;         // e.g. "pay_orders"
  std::string key_column;    // e.g. "order_no"
  std::string state_column;  // e.g. "status"; text
  // Optional: an integer column bumped by every transition (UpdateIfVersion readers can use it).
  std::string version_column;
  // The legal transitions. They must not form a cycle: "the state is already
  // past the target" is only well defined when states never come back.
  std::vector<StateTransition> transitions;
};

struct TransitionResult {
  enum class Outcome {
    kApplied,          // moved from a legal predecessor to the target: go on with the effects
    kAlreadyInTarget,  // a duplicate: idempotent success, apply nothing
    kStale,            // the row is already past the target (a late event): ack, apply nothing, never regress
    kTooEarly,         // the row has not reached a predecessor yet (an early event): retry later
    kIllegal,          // the target cannot be reached from the current state: permanent error + alert
    kNotFound,         // no row with this key
  };
  Outcome outcome = Outcome::kApplied;
  std::string current;  // the state read back when not applied; the target when applied

  // True only for kApplied: the caller owns the transition and applies its effects.
  bool applied() const { return outcome == Outcome::kApplied; }
  // "stale: state SHIPPED is already past PAID", "illegal: REFUNDED cannot become SHIPPED", …
  std::string Describe(std::string_view target) const;
};

const char* TransitionOutcomeName(TransitionResult::Outcome o);

class StateMachine {
 public:
  // Checks identifiers, that every transition names two different states, and
  // that the transitions form no cycle. InvalidArgument says what is wrong.
  static Result<StateMachine> Create(StateMachineSpec spec);

  // Moves the row `key` to `target` with one conditional UPDATE
  //   SET state = target [, version = version + 1] [, also_set…]
  //   WHERE key = ? AND state IN (every declared predecessor of target)
  // and, when no row changed, re-reads the state to classify the event.
  // REQUIRES: `target` has at least one declared predecessor (InvalidArgument otherwise).
  Result<TransitionResult> Move(SqlTx& tx, const Value& key, std::string_view target,
                                const std::vector<Column>& also_set = {}) const;

  // One row for MoveRows: its key and the columns it sets besides the state.
  struct RowMove {
    Value key;
    std::vector<Column> also_set;
  };

  // The set form of Move, for a batch of events: moves every row of `rows` from
  // a declared predecessor to `target` in conditional UPDATEs of up to 128
  // rows each (each row's also_set chosen by a CASE on the key) and returns
  // how many moved. A row in any other state stays as it
  // is and is not classified: a caller that gets fewer than rows.size() rolls
  // back to its savepoint and runs Move row by row to learn why.
  // REQUIRES: as Move; every row sets the same columns in the same order.
  Result<int64_t> MoveRows(SqlTx& tx, const std::vector<RowMove>& rows, std::string_view target) const;

  // Pure classification of an event that wants `target` while the row is in `current`.
  TransitionResult::Outcome Classify(std::string_view current, std::string_view target) const;

  // from → to is declared.
  bool IsLegal(std::string_view from, std::string_view to) const;
  // `to` can be reached from `from` through one or more declared transitions.
  bool Reaches(std::string_view from, std::string_view to) const;

  const StateMachineSpec& spec() const { return spec_; }

 private:
  explicit StateMachine(StateMachineSpec spec) : spec_(std::move(spec)) {}
  StateMachineSpec spec_;
  std::map<std::string, std::set<std::string>, std::less<>> predecessors_;  // target → legal froms
  std::map<std::string, std::set<std::string>, std::less<>> reachable_;    // state → every later state
};

}  // namespace idem
