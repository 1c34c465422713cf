// Declarative handlers: what a configuration file says a topic's handler does,
// as data. declarative_handler.h turns one into a HandlerSpec whose steps run
// the business guards (idem/guards.h) in the consumption record's transaction.
//
// Table and column names come from the file and are checked to be plain
// identifiers when it is read; values always come from the message through
// bound parameters, so nothing a message holds ever becomes SQL text.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "idem/guards.h"

namespace idem::service {

// Where a bound value comes from.
struct ValueSource {
  enum class Kind {
    kField,           // the payload at `text` (a member name or a JSON pointer)
    kMinusField,      // { minus = "amount_cents" }: the whole number at `text`, negated (a debit row)
    kText,            // the literal `text`
    kInt,             // the literal `number`
    kNowMs,           // "$now_ms": the Env clock, milliseconds since the epoch
    kIdempotencyKey,  // "$idempotency_key": the message's key
  };
  Kind kind = Kind::kField;
  std::string text;
  int64_t number = 0;
};

using ColumnSources = std::vector<std::pair<std::string, ValueSource>>;  // column → value

// What a step that finds its work done or out of date does with the message.
enum class StopAs {
  kAck,    // success: stop here, apply nothing more (the record says why)
  kRetry,  // retryable: roll the message back, retry after the delay
  kPark,   // permanent: roll back, park in the dead-letter queue
  kGoOn,   // run the next step anyway
};

struct StepConfig {
  enum class Kind { kInsertOnce, kChangeBalance, kTransition, kUpdateIfVersion, kSql };
  Kind kind = Kind::kInsertOnce;
  std::string where;  // "FILE:LINE:COLUMN" of the step, for errors at run time too

  std::string table;       // insert_once, change_balance, update_if_version
  ColumnSources columns;   // insert_once: the row; update_if_version: `set`; transition: `also_set`
  StopAs on_already_applied = StopAs::kAck;  // insert_once

  std::string key_column, balance_column, version_column;  // change_balance, update_if_version
  ValueSource key;                  // change_balance, transition, update_if_version
  ValueSource amount;               // change_balance: the amount (a whole number)
  bool subtract = false;            // change_balance: balance − amount instead of + amount
  int64_t floor = 0;                // change_balance: the balance never goes below it
  ValueSource expected_version;     // update_if_version
  StopAs on_version_moved = StopAs::kAck;  // update_if_version: the event is out of date

  std::string machine;  // transition: a [[state_machine]] name
  std::string target;   // transition: the state to move to

  std::string sql;                    // sql: the statement, `?` markers; a SELECT counts the rows it returns
  std::vector<ValueSource> params;    // sql: one per marker, in order
  int64_t expect_rows = -1;           // sql: rows it must change, or a SELECT return (-1: any)
  StopAs on_other_rows = StopAs::kPark;  // sql: when it changed another number
};

struct DeclaredHandler {
  std::string topic;
  std::string where;
  std::vector<std::string> key_fields;          // top-level members; the idempotency key
  std::vector<std::string> fingerprint_fields;  // default: the whole payload
  std::vector<StepConfig> steps;
};

struct StateMachineConfig {
  std::string name;
  std::string where;
  StateMachineSpec spec;
  StopAs on_stale = StopAs::kAck;  // the row is already past the target: a late event
};

}  // namespace idem::service
